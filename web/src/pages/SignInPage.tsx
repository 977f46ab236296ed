import { useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useState } from 'react'
import { AuthFrame } from '../components/AuthFrame.tsx'
import { ErrorText } from '../components/ErrorText.tsx'
import { IdpButton } from '../components/IdpButton.tsx'
import { api } from '../lib/api.ts'
import { useAuthConfig } from '../lib/queries.ts'
import { Link, useLocation, useRouter } from '@tanstack/react-router'
import { signIn } from '../lib/session.ts'
import { useForm, useSubmit } from '../lib/useForm.ts'
import { Field } from '../components/form.tsx'

export function SignInPage() {
  const queryClient = useQueryClient()
  const config = useAuthConfig()
  const router = useRouter()
  const href = useLocation({ select: (location) => location.href })
  const form = useForm({ email: '', password: '' })
  // Signing in from a deep link (e.g. a task page) returns there; from the sign-in page, home.
  const target = href.startsWith('/sign-in') ? '/' : href
  const open = useCallback(() => router.history.replace(target), [router, target])
  const submit = useSubmit(() => signIn(queryClient, () => api.auth.login(form.values.email.trim(), form.values.password)).then(open))
  const [idpError, setIdpError] = useState<unknown>(null)
  // A fresh instance has nobody to sign in yet: its first person signs up.
  useEffect(() => {
    if (config.data?.has_accounts === false) router.history.replace('/sign-up')
  }, [config.data?.has_accounts, router])
  const onCredential = useCallback(
    (credential: string) => {
      signIn(queryClient, () => api.auth.loginIdp(credential)).then(open, setIdpError)
    },
    [queryClient, open, setIdpError],
  )
  return (
    <AuthFrame title="Sign in">
      <form onSubmit={submit.onSubmit}>
        <ErrorText error={submit.error ?? idpError} />
        <Field label="Email"><input type="email" autoComplete="email" required autoFocus {...form.bind('email')} /></Field>
        <Field label="Password"><input type="password" autoComplete="current-password" required {...form.bind('password')} /></Field>
        <div className="actions">
          <button className="primary" type="submit" disabled={submit.pending}>{submit.pending ? 'Signing in…' : 'Sign in'}</button>
          <Link to="/forgot-password">Forgot password?</Link>
        </div>
      </form>
      {config.data?.idp_client_id && (
        <>
          <p className="muted" style={{ margin: '16px 0 8px' }}>or</p>
          <IdpButton clientId={config.data.idp_client_id} onCredential={onCredential} />
        </>
      )}
      <p style={{ marginTop: 16 }}>New here? <Link to="/sign-up">Create an account</Link></p>
    </AuthFrame>
  )
}
