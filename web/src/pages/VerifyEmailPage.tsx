import { useEffect, useRef, useState } from 'react'
import { Link, useSearch } from '@tanstack/react-router'
import { AuthFrame } from '../components/AuthFrame.tsx'
import { ErrorText } from '../components/ErrorText.tsx'
import { api } from '../lib/api.ts'

/** The page the registration email links to: /verify-email?token=... confirms the address at once. */
export function VerifyEmailPage() {
  const token = useSearch({ from: '/verify-email' }).token ?? ''
  const [state, setState] = useState<'checking' | 'done' | Error>(token ? 'checking' : new Error('This link has no verification token.'))
  // Once per page, also under React's double effects in development: the link works only once.
  const sent = useRef(false)
  useEffect(() => {
    if (!token || sent.current) return
    sent.current = true
    api.auth.verifyEmail(token).then(() => setState('done'), (err: Error) => setState(err))
  }, [token])
  return (
    <AuthFrame title="Confirm your email address">
      {state === 'checking' && <p role="status">Confirming…</p>}
      {state === 'done' && <p className="notice" role="status">Your email address is confirmed. Thank you.</p>}
      {state instanceof Error && <ErrorText error={state} />}
      <p style={{ marginTop: 16 }}><Link to="/">Go to Shopfloor</Link></p>
    </AuthFrame>
  )
}
