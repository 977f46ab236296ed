// Outbound webhooks of the company (docs/webhooks.md): subscriptions with their events and
// state, the signing secret shown once on creation, and each one's delivery log with Retry.
// Owners and admins only; a member is told so in a sentence rather than shown the API's 403.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { Webhook, WebhookWithSecret } from '#src/client/types.ts'
import { Badge } from '../components/Badge.tsx'
import { CopyField } from '../components/CopyField.tsx'
import { ErrorText } from '../components/ErrorText.tsx'
import { Deliveries } from '../components/webhooks/Deliveries.tsx'
import { EditWebhookDialog, NewWebhookDialog } from '../components/webhooks/WebhookDialogs.tsx'
import { api } from '../lib/api.ts'
import { useCompanyId } from '../lib/company.ts'
import { errorCode } from '../lib/errors.ts'
import { useFormat } from '../lib/preferences.tsx'
import { keys, useCompany, useWebhooks } from '../lib/queries.ts'

const ONLY_MANAGERS = 'Only owners and admins of the company manage webhooks. Ask one of them to subscribe a URL for you.'

export function WebhooksPage() {
  const companyId = useCompanyId()
  const company = useCompany(companyId)
  const role = company.data?.role
  const manages = role === 'owner' || role === 'admin'
  const hooks = useWebhooks(companyId, manages)
  const [creating, setCreating] = useState(false)
  const [created, setCreated] = useState<WebhookWithSecret | null>(null)
  // A role changed since the company was read still gets the sentence, not the 403.
  const refused = errorCode(hooks.error) === 'FORBIDDEN'
  return (
    <>
      <div className="page-head">
        <h1>Webhooks</h1>
        {manages && !refused && <button className="primary" onClick={() => setCreating(true)}>New webhook</button>}
      </div>
      <ErrorText error={company.error} retry={() => void company.refetch()} />
      {company.data && (!manages || refused) && <p className="notice">{ONLY_MANAGERS}</p>}
      {manages && !refused && (
        <>
          <p className="muted">
            Each change in the company is sent as a signed POST (Standard Webhooks) to the URLs subscribed to its event,
            retried for 24 hours; a URL failing for 3 days is disabled.
          </p>
          {created && <SecretOnce hook={created} onDone={() => setCreated(null)} />}
          <ErrorText error={hooks.error} retry={() => void hooks.refetch()} />
          {hooks.data?.length === 0 && <p className="empty">No webhooks yet.</p>}
          {hooks.data?.map((hook) => <WebhookPanel key={hook.id} companyId={companyId} hook={hook} />)}
        </>
      )}
      {creating && (
        <NewWebhookDialog companyId={companyId} onClose={() => setCreating(false)} onCreated={(hook) => { setCreating(false); setCreated(hook) }} />
      )}
    </>
  )
}

/** The signing secret, this once: the API never answers it again. */
function SecretOnce({ hook, onDone }: { hook: WebhookWithSecret; onDone: () => void }) {
  return (
    <section className="panel notice" aria-label="Signing secret">
      <h2>Signing secret of {hook.url}</h2>
      <p>Copy it now into the receiver's settings: you will not see it again.</p>
      <CopyField label="Signing secret" value={hook.secret} />
      <div className="actions" style={{ marginTop: 8 }}><button onClick={onDone}>I have copied it</button></div>
    </section>
  )
}

function WebhookPanel({ companyId, hook }: { companyId: string; hook: Webhook }) {
  const client = useQueryClient()
  const format = useFormat()
  const [editing, setEditing] = useState(false)
  const [open, setOpen] = useState(false)
  const refresh = () => client.invalidateQueries({ queryKey: keys.company(companyId, 'webhooks') })
  const toggle = useMutation({ mutationFn: (enabled: boolean) => api.webhooks.update(companyId, hook.id, { enabled }), onSuccess: refresh })
  const remove = useMutation({
    mutationFn: () => api.webhooks.delete(companyId, hook.id),
    onSuccess() {
      // Its delivery log is gone with it: closed, so that it is not asked for again (a 404) while the list is.
      setOpen(false)
      client.removeQueries({ queryKey: keys.company(companyId, 'webhooks', hook.id) })
      return refresh()
    },
  })
  return (
    <section className="panel" aria-label={hook.url}>
      <div className="row">
        <strong className="mono" style={{ overflowWrap: 'anywhere' }}>{hook.url}</strong>
        <Badge value={hook.enabled ? 'enabled' : 'disabled'} />
        <span className="grow" />
        <label className="check small"><input type="checkbox" checked={hook.enabled} onChange={(e) => toggle.mutate(e.target.checked)} /> Enabled</label>
        <button className="link small" onClick={() => setEditing(true)}>Change</button>
        <button className="link danger small" onClick={() => window.confirm(`Delete the webhook to ${hook.url}? Its delivery log goes with it.`) && remove.mutate()}>Delete</button>
      </div>
      <ErrorText error={toggle.error ?? remove.error} />
      {hook.disabled_reason && <p className="error small">Disabled by Shopfloor: {hook.disabled_reason}. Enable it again once the receiver answers.</p>}
      <p className="small">
        Events: <span className="mono">{hook.events.includes('*') ? 'every event' : hook.events.join(', ')}</span>
        {hook.description && <> · {hook.description}</>}
        <span className="muted"> · since {format.date(hook.created_at)}</span>
      </p>
      <button className="link small" aria-expanded={open} onClick={() => setOpen(!open)}>{open ? 'Hide deliveries' : 'Show deliveries'}</button>
      {open && <Deliveries companyId={companyId} webhookId={hook.id} />}
      {editing && <EditWebhookDialog companyId={companyId} hook={hook} onClose={() => setEditing(false)} />}
    </section>
  )
}
