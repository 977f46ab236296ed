// Personal API keys: list, create (the secret is shown once, with a copy button), revoke.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { CreatedApiKey } from '#src/client/types.ts'
import { api } from '../../lib/api.ts'
import { useFormat } from '../../lib/preferences.tsx'
import { useApiKeys } from '../../lib/queries.ts'
import { useForm, useSubmit } from '../../lib/useForm.ts'
import { ErrorText } from '../ErrorText.tsx'

export function ApiKeys() {
  const client = useQueryClient()
  const format = useFormat()
  const keys = useApiKeys()
  const form = useForm({ name: '', days: '' })
  const [created, setCreated] = useState<CreatedApiKey | null>(null)
  const [copied, setCopied] = useState(false)
  const refresh = () => client.invalidateQueries({ queryKey: ['api-keys'] })
  const create = useSubmit(async () => {
    const days = form.values.days.trim()
    if (days && !/^\d+$/.test(days)) throw new Error('Expires in days: enter a whole number from 1 to 3650, or leave it blank.')
    const key = await api.apiKeys.create({ name: form.values.name.trim(), ...(days ? { expires_in_days: Number(days) } : {}) })
    setCreated(key)
    setCopied(false)
    form.reset()
    await refresh()
  })
  const revoke = useMutation({ mutationFn: (id: string) => api.apiKeys.revoke(id), onSuccess: refresh })

  async function copy(text: string) {
    try {
      await navigator.clipboard.writeText(text)
      setCopied(true)
    } catch {
      create.setError(new Error('The browser refused to copy; select the key and copy it by hand.'))
    }
  }

  return (
    <section className="panel" aria-label="API keys">
      <h2>API keys</h2>
      <p className="muted">Keys act as you in every company you belong to, for runners, scripts and the command line.</p>
      {created && (
        <div className="notice" role="status">
          <p><strong>{created.name}</strong> is ready. Copy it now: it is not shown again.</p>
          <div className="row">
            <input readOnly value={created.key} className="mono grow" aria-label="New API key" onFocus={(e) => e.target.select()} style={{ width: 'auto' }} />
            <button onClick={() => copy(created.key)}>{copied ? 'Copied' : 'Copy'}</button>
            <button className="link" onClick={() => setCreated(null)}>Done</button>
          </div>
        </div>
      )}
      <form className="row" onSubmit={create.onSubmit} style={{ alignItems: 'end', marginBottom: 12 }}>
        <label className="grow">Name<input required maxLength={100} {...form.bind('name')} /></label>
        <label>Expires in days <span className="hint">(optional)</span><input inputMode="numeric" {...form.bind('days')} /></label>
        <button className="primary" type="submit" disabled={create.pending}>Create key</button>
      </form>
      <ErrorText error={create.error ?? revoke.error ?? keys.error} />
      {keys.data?.length === 0 && <p className="empty">No keys.</p>}
      {keys.data && keys.data.length > 0 && (
        <div className="table-wrap">
          <table className="stack">
            <thead><tr><th>Name</th><th>Key</th><th className="hide-phone">Created</th><th className="hide-phone">Last used</th><th>Expires</th><th /></tr></thead>
            <tbody>
              {keys.data.map((key) => (
                <tr key={key.id}>
                  <td className="free title-cell">{key.name}</td>
                  <td data-label="Key" className="mono">{key.prefix}…</td>
                  <td className="hide-phone">{format.date(key.created_at)}</td>
                  <td className="hide-phone">{format.relative(key.last_used)}</td>
                  <td data-label="Expires">{key.expires_at ? format.date(key.expires_at) : 'Never'}</td>
                  <td><button className="link danger" onClick={() => window.confirm(`Revoke ${key.name}? Programs using it stop working.`) && revoke.mutate(key.id)}>Revoke</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}
