import { useQueryClient } from '@tanstack/react-query'
import { AuthFrame } from '../components/AuthFrame.tsx'
import { ErrorText } from '../components/ErrorText.tsx'
import { api } from '../lib/api.ts'
import { Link, useNavigate } from '@tanstack/react-router'
import { signIn } from '../lib/session.ts'
import { useForm, useSubmit } from '../lib/useForm.ts'
import { Field } from '../components/form.tsx'

export function SignUpPage() {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const form = useForm({ name: '', email: '', password: '' })
  const submit = useSubmit(() =>
    signIn(queryClient, () => api.auth.register({ name: form.values.name.trim(), email: form.values.email.trim(), password: form.values.password })).then(() => navigate({ to: '/companies/new', replace: true })),
  )
  return (
    <AuthFrame title="Create your account">
      <form onSubmit={submit.onSubmit}>
        <ErrorText error={submit.error} />
        <Field label="Name"><input autoComplete="name" required maxLength={255} autoFocus {...form.bind('name')} /></Field>
        <Field label="Email"><input type="email" autoComplete="email" required {...form.bind('email')} /></Field>
        <label className="field">
          Password <span className="hint">(8 to 128 characters)</span>
          <input type="password" autoComplete="new-password" required minLength={8} maxLength={128} {...form.bind('password')} />
        </label>
        <button className="primary" type="submit" disabled={submit.pending}>{submit.pending ? 'Creating…' : 'Create account'}</button>
      </form>
      <p style={{ marginTop: 16 }}>Already have an account? <Link to="/sign-in">Sign in</Link></p>
    </AuthFrame>
  )
}
