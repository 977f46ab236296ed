// Subscribing a URL and changing a subscription. Events are patterns typed as a list ("task.*,
// run.updated"); left blank a new subscription gets every event ("*").
import { useQueryClient } from '@tanstack/react-query'
import type { Webhook, WebhookWithSecret } from '#src/client/types.ts'
import { api } from '../../lib/api.ts'
import { keys } from '../../lib/queries.ts'
import { useForm, useSubmit } from '../../lib/useForm.ts'
import { Field, FormDialog } from '../form.tsx'

const EVENTS_HINT = 'patterns such as task.*, run.updated; blank = every event'

/** "task.*, run.updated" -> ["task.*", "run.updated"]; null when blank. */
function parseEvents(text: string): string[] | null {
  const events = text.split(/[\s,]+/).filter(Boolean)
  return events.length > 0 ? events : null
}

export function NewWebhookDialog({ companyId, onCreated, onClose }: { companyId: string; onCreated: (hook: WebhookWithSecret) => void; onClose: () => void }) {
  const client = useQueryClient()
  const form = useForm({ url: '', events: '', description: '' })
  const submit = useSubmit(async () => {
    const events = parseEvents(form.values.events)
    const created = await api.webhooks.create(companyId, {
      url: form.values.url.trim(),
      ...(events ? { events } : {}),
      description: form.values.description.trim() || null,
    })
    await client.invalidateQueries({ queryKey: keys.company(companyId, 'webhooks') })
    onCreated(created)
  })
  return (
    <FormDialog title="New webhook" submit={submit} submitLabel="Subscribe" onClose={onClose}>
      <Field label="URL" hint="receives a signed POST for each event"><input type="url" required maxLength={2000} placeholder="https://example.com/hooks/shopfloor" {...form.bind('url')} /></Field>
      <Field label="Events" hint={EVENTS_HINT}><input className="mono" {...form.bind('events')} /></Field>
      <Field label="Description"><input maxLength={500} {...form.bind('description')} /></Field>
    </FormDialog>
  )
}

export function EditWebhookDialog({ companyId, hook, onClose }: { companyId: string; hook: Webhook; onClose: () => void }) {
  const client = useQueryClient()
  const form = useForm({ events: hook.events.join(', '), description: hook.description ?? '', enabled: hook.enabled })
  const submit = useSubmit(async () => {
    await api.webhooks.update(companyId, hook.id, {
      events: parseEvents(form.values.events) ?? ['*'],
      description: form.values.description.trim() || null,
      enabled: form.values.enabled,
    })
    await client.invalidateQueries({ queryKey: keys.company(companyId, 'webhooks') })
    onClose()
  })
  return (
    <FormDialog title="Change webhook" submit={submit} submitLabel="Save" onClose={onClose}>
      <p className="mono small">{hook.url}</p>
      <Field label="Events" hint={EVENTS_HINT}><input className="mono" {...form.bind('events')} /></Field>
      <Field label="Description"><input maxLength={500} {...form.bind('description')} /></Field>
      <label className="check"><input type="checkbox" {...form.check('enabled')} /> Enabled (enabling again clears a disable for failing)</label>
    </FormDialog>
  )
}
