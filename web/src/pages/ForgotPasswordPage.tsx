import { useState } from 'react'
import { AuthFrame } from '../components/AuthFrame.tsx'
import { ErrorText } from '../components/ErrorText.tsx'
import { api } from '../lib/api.ts'
import { Link } from '@tanstack/react-router'
import { useForm, useSubmit } from '../lib/useForm.ts'
import { Field } from '../components/form.tsx'

export function ForgotPasswordPage() {
  const form = useForm({ email: '' })
  const [sent, setSent] = useState<string | null>(null)
  const submit = useSubmit(async () => {
    const answer = await api.auth.forgotPassword(form.values.email.trim())
    setSent(answer?.message ?? 'If the address has an account, a reset link is on its way.')
  })
  return (
    <AuthFrame title="Reset your password">
      {sent ? (
        <p className="notice" role="status">{sent}</p>
      ) : (
        <form onSubmit={submit.onSubmit}>
          <p className="muted">We will email you a link to choose a new password. It works once, for 30 minutes.</p>
          <ErrorText error={submit.error} />
          <Field label="Email"><input type="email" autoComplete="email" required autoFocus {...form.bind('email')} /></Field>
          <button className="primary" type="submit" disabled={submit.pending}>Send the link</button>
        </form>
      )}
      <p style={{ marginTop: 16 }}><Link to="/sign-in">Back to sign in</Link></p>
    </AuthFrame>
  )
}
