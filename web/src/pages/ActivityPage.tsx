import { useInfiniteQuery } from '@tanstack/react-query'
import type { AuditEvent } from '#src/client/types.ts'
import { ErrorText } from '../components/ErrorText.tsx'
import { api } from '../lib/api.ts'
import { useCompanyId } from '../lib/company.ts'
import { humanize } from '../lib/format.ts'
import { useFormat } from '../lib/preferences.tsx'
import { keys } from '../lib/queries.ts'

const PAGE = 50

/** The audit trail, newest first, paged with the `before` cursor. */
export function ActivityPage() {
  const companyId = useCompanyId()
  const format = useFormat()
  const activity = useInfiniteQuery({
    queryKey: keys.company(companyId, 'activity'),
    queryFn: ({ pageParam }) => api.insights.activity(companyId, { limit: PAGE, ...(pageParam ? { before: pageParam } : {}) }),
    initialPageParam: '',
    getNextPageParam: (last) => (last.length === PAGE ? last[last.length - 1].created_at : undefined),
  })
  const events = activity.data?.pages.flat() ?? []
  return (
    <>
      <div className="page-head"><h1>Activity</h1></div>
      <ErrorText error={activity.error} />
      {activity.data && events.length === 0 && <p className="empty">Nothing has happened yet.</p>}
      {events.length > 0 && (
        <div className="panel table-wrap">
          <table>
            <thead><tr><th>When</th><th>Who</th><th>What</th></tr></thead>
            <tbody>
              {events.map((event) => (
                <tr key={event.id}>
                  <td className="nowrap muted small" title={format.dateTime(event.created_at)}>{format.relative(event.created_at)}</td>
                  <td className="nowrap">{event.actor_name}<div className="muted small">{event.actor_type}</div></td>
                  <td>
                    <div>{humanize(event.verb)} {event.entity_type} <strong>{event.label}</strong></div>
                    <Changes changes={event.changes} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {activity.hasNextPage && (
        <button onClick={() => activity.fetchNextPage()} disabled={activity.isFetchingNextPage}>{activity.isFetchingNextPage ? 'Loading…' : 'Load older'}</button>
      )}
    </>
  )
}

const show = (value: unknown) => (value === null || value === undefined ? '—' : typeof value === 'object' ? JSON.stringify(value) : String(value))

/** Field-level changes: field, old value struck through, new value. */
function Changes({ changes }: { changes: AuditEvent['changes'] }) {
  const entries = Object.entries(changes ?? {})
  if (entries.length === 0) return null
  return (
    <ul className="changes" style={{ margin: '4px 0 0', paddingLeft: 18 }}>
      {entries.map(([field, pair]) => {
        const [before, after] = Array.isArray(pair) ? pair : [undefined, pair]
        return (
          <li key={field}>{humanize(field)}: <del>{show(before)}</del> → <ins>{show(after)}</ins></li>
        )
      })}
    </ul>
  )
}
