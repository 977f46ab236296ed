import { useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { User } from '#src/client/types.ts'
import { ErrorText } from '../components/ErrorText.tsx'
import { ApiKeys } from '../components/profile/ApiKeys.tsx'
import { PreferencesForm } from '../components/profile/PreferencesForm.tsx'
import { api } from '../lib/api.ts'
import { useMe } from '../lib/queries.ts'
import { useForm, useSubmit } from '../lib/useForm.ts'
import { Field } from '../components/form.tsx'

export function ProfilePage() {
  const me = useMe()
  if (!me.data) return <ErrorText error={me.error} />
  return (
    <>
      <div className="page-head"><h1>Your profile</h1></div>
      <ProfileForm user={me.data} key={me.data.id} />
      <PreferencesForm preferences={me.data.preferences} />
      <ApiKeys />
    </>
  )
}

function ProfileForm({ user }: { user: User }) {
  const client = useQueryClient()
  const form = useForm({ name: user.name, avatar: user.avatar_url ?? '' })
  const [saved, setSaved] = useState(false)
  const submit = useSubmit(async () => {
    setSaved(false)
    const updated = await api.me.update({ name: form.values.name.trim(), avatar_url: form.values.avatar.trim() || null })
    client.setQueryData(['me'], updated)
    setSaved(true)
  })
  return (
    <form className="panel" onSubmit={submit.onSubmit} aria-label="Profile">
      <h2>Profile</h2>
      <ErrorText error={submit.error} />
      {saved && <p className="notice" role="status">Saved.</p>}
      <div className="form-grid">
        <Field label="Name"><input required maxLength={255} {...form.bind('name')} /></Field>
        <Field label="Email"><input value={user.email} disabled /></Field>
        <Field label="Avatar URL" hint="https://…"><input type="url" maxLength={500} {...form.bind('avatar')} /></Field>
      </div>
      <button className="primary" type="submit" disabled={submit.pending}>Save profile</button>
    </form>
  )
}
