import { useState } from 'react'
import { AuthFrame } from '../components/AuthFrame.tsx'
import { ErrorText } from '../components/ErrorText.tsx'
import { api } from '../lib/api.ts'
import { Link, useSearch } from '@tanstack/react-router'
import { useForm, useSubmit } from '../lib/useForm.ts'
import { Field } from '../components/form.tsx'

/** The page the reset email links to: /reset-password?token=... */
export function ResetPasswordPage() {
  const token = useSearch({ from: '/reset-password' }).token ?? ''
  const form = useForm({ password: '', confirm: '' })
  const [done, setDone] = useState(false)
  const submit = useSubmit(async () => {
    if (form.values.password !== form.values.confirm) throw new Error('The two passwords differ.')
    await api.auth.resetPassword(token, form.values.password)
    // Every session ended with the reset; this browser signs in afresh.
    api.useCredentials(null)
    setDone(true)
  })
  return (
    <AuthFrame title="Choose a new password">
      {!token && <p className="error" role="alert">This link has no reset token. Ask for a new link.</p>}
      {done ? (
        <p className="notice" role="status">Your password is changed. <Link to="/sign-in">Sign in</Link> with it.</p>
      ) : (
        <form onSubmit={submit.onSubmit}>
          <ErrorText error={submit.error} />
          <Field label="New password"><input type="password" autoComplete="new-password" required minLength={8} maxLength={128} autoFocus {...form.bind('password')} /></Field>
          <Field label="Repeat it"><input type="password" autoComplete="new-password" required {...form.bind('confirm')} /></Field>
          <button className="primary" type="submit" disabled={submit.pending || !token}>Change password</button>
        </form>
      )}
      <p style={{ marginTop: 16 }}><Link to="/forgot-password">Ask for a new link</Link></p>
    </AuthFrame>
  )
}
