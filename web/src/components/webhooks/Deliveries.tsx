// A subscription's delivery log, newest first: each event sent, how it went, when the last
// attempt ended and when the next one is due, and a Retry that sends it again now.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { WebhookDelivery } from '#src/client/types.ts'
import { api } from '../../lib/api.ts'
import { useFormat } from '../../lib/preferences.tsx'
import { keys, useDeliveries } from '../../lib/queries.ts'
import { Badge } from '../Badge.tsx'
import { ErrorText } from '../ErrorText.tsx'

export function Deliveries({ companyId, webhookId }: { companyId: string; webhookId: string }) {
  const deliveries = useDeliveries(companyId, webhookId)
  if (deliveries.error) return <ErrorText error={deliveries.error} retry={() => void deliveries.refetch()} />
  if (!deliveries.data) return <p className="muted small">Loading…</p>
  if (deliveries.data.length === 0) return <p className="empty">Nothing sent yet. Each matching change in the company is delivered here.</p>
  return (
    <div className="table-wrap">
      <table className="stack" aria-label="Deliveries">
        <thead><tr><th>Event</th><th>Status</th><th>Attempts</th><th>Last response</th><th>Next attempt</th><th /></tr></thead>
        <tbody>{deliveries.data.map((d) => <DeliveryRow key={d.id} companyId={companyId} webhookId={webhookId} delivery={d} />)}</tbody>
      </table>
    </div>
  )
}

function DeliveryRow({ companyId, webhookId, delivery }: { companyId: string; webhookId: string; delivery: WebhookDelivery }) {
  const client = useQueryClient()
  const format = useFormat()
  const retry = useMutation({
    mutationFn: () => api.webhooks.retry(companyId, webhookId, delivery.id),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.company(companyId, 'webhooks', webhookId, 'deliveries') }),
  })
  const code = delivery.last_status_code !== null ? `HTTP ${delivery.last_status_code}` : null
  // The error says more than the code only when it is not just the code again ("HTTP 500").
  const error = delivery.last_error && delivery.last_error !== code ? delivery.last_error : null
  return (
    <tr aria-label={delivery.type}>
      <td>
        <span className="mono">{delivery.type}</span>
        <div className="muted small" title={format.dateTime(delivery.created_at)}>{format.relative(delivery.created_at)}</div>
      </td>
      <td data-label="Status"><Badge value={delivery.status} /></td>
      <td data-label="Attempts">{delivery.attempts}</td>
      <td className="small" data-label="Last response">
        {code}
        {error && <div className={code ? 'muted' : undefined}>{error}</div>}
        {!code && !error && <span className="muted">Not tried yet</span>}
        {delivery.last_attempt_at && <div className="muted" title={format.dateTime(delivery.last_attempt_at)}>{format.relative(delivery.last_attempt_at)}</div>}
      </td>
      <td className="small muted" data-label="Next attempt" title={format.dateTime(delivery.next_attempt_at)}>
        {delivery.next_attempt_at ? format.relative(delivery.next_attempt_at) : '—'}
      </td>
      <td className="nowrap">
        <button className="small" onClick={() => retry.mutate()} disabled={retry.isPending} aria-label={`Retry ${delivery.type}`}>Retry</button>
        <ErrorText error={retry.error} />
      </td>
    </tr>
  )
}
