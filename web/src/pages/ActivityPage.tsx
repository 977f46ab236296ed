import { useInfiniteQuery } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import type { ReactNode } from 'react'
import type { AuditEvent } from '#src/client/types.ts'
import { ErrorText } from '../components/ErrorText.tsx'
import { TaskRef } from '../components/TaskRef.tsx'
import { api } from '../lib/api.ts'
import { useCompanyId } from '../lib/company.ts'
import { type Formatter, humanize } from '../lib/format.ts'
import { auditActor, type Names, useNames, UUID } from '../lib/names.ts'
import { useFormat } from '../lib/preferences.tsx'
import { keys } from '../lib/queries.ts'

const PAGE = 50

/** The audit trail, newest first, paged with the `before` cursor; every id said as a name. */
export function ActivityPage() {
  const companyId = useCompanyId()
  const format = useFormat()
  const names = useNames(companyId)
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
      <ErrorText error={activity.error} retry={() => void activity.refetch()} />
      {activity.data && events.length === 0 && <p className="empty">Nothing has happened yet.</p>}
      {events.length > 0 && (
        <div className="panel table-wrap">
          <table className="stack">
            <thead><tr><th>When</th><th>Who</th><th>What</th></tr></thead>
            <tbody>
              {events.map((event) => (
                <tr key={event.id} data-event={event.id}>
                  <td className="nowrap muted small lead" title={format.dateTime(event.created_at)}>{format.relative(event.created_at)}</td>
                  <td className="nowrap lead">{auditActor(event).name}<span className="muted small actor-kind">{auditActor(event).kind}</span></td>
                  <td className="free">
                    <div>
                      {humanize(event.verb)} {event.entity_type} <Subject companyId={companyId} event={event} />
                      {event.run_id && <> <Link className="small" to="/c/$companyId/runs/$runId" params={{ companyId, runId: event.run_id }}>during a run</Link></>}
                    </div>
                    <Changes companyId={companyId} event={event} names={names} format={format} />
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

/** The record the event is about, by its label (a task's key and title), linked while it exists. */
function Subject({ companyId, event }: { companyId: string; event: AuditEvent }) {
  const label = <strong>{event.label ?? ''}</strong>
  if (!event.entity_id || event.verb === 'deleted') return label
  if (event.entity_type === 'task') return <Link to="/c/$companyId/tasks/$taskRef" params={{ companyId, taskRef: event.label?.split(' ')[0] || event.entity_id }}>{label}</Link>
  if (event.entity_type === 'agent') return <Link to="/c/$companyId/agents/$agentId" params={{ companyId, agentId: event.entity_id }}>{label}</Link>
  if (event.entity_type === 'run') return <Link to="/c/$companyId/runs/$runId" params={{ companyId, runId: event.entity_id }}>{label || 'a run'}</Link>
  return label
}

// Fields that hold another record's id, and what kind of record each names.
const AGENT_FIELDS = new Set(['assignee_agent_id', 'owner_agent_id', 'reports_to_id', 'agent_id', 'created_by_agent_id'])

/** One value of a change, as people say it: a name for an id, a date for a timestamp, money for cents. */
function Value({ companyId, event, field, value, names, format }: { companyId: string; event: AuditEvent; field: string; value: unknown; names: Names; format: Formatter }): ReactNode {
  if (value === null || value === undefined || value === '') return 'none'
  if (typeof value === 'boolean') return value ? 'yes' : 'no'
  if (typeof value === 'number') return field.endsWith('_cents') ? format.money(value) : format.number(value)
  if (typeof value === 'object') return <code>{JSON.stringify(value)}</code>
  const text = String(value)
  if (UUID.test(text)) {
    const isTask = field === 'task_id' || (field === 'parent_id' && event.entity_type === 'task')
    if (isTask) return <TaskRef companyId={companyId} taskId={text} />
    if (AGENT_FIELDS.has(field)) return names.agent(text) ?? 'an agent no longer here'
    if (field === 'project_id') return names.project(text) ?? 'a deleted project'
    if (field === 'goal_id' || field === 'parent_id') return names.goal(text) ?? 'a deleted goal'
    return names.agent(text) ?? names.project(text) ?? names.goal(text) ?? 'another record'
  }
  if (field.endsWith('_at') || field === 'due_date') return format.dateTime(text)
  if (['status', 'priority', 'role', 'trigger', 'type'].includes(field)) return humanize(text)
  return text
}

/** Field-level changes: field, old value struck through, new value, ids said as names. */
function Changes({ companyId, event, names, format }: { companyId: string; event: AuditEvent; names: Names; format: Formatter }) {
  const entries = Object.entries(event.changes ?? {})
  if (entries.length === 0) return null
  const show = (field: string, value: unknown) => <Value companyId={companyId} event={event} field={field} value={value} names={names} format={format} />
  return (
    <ul className="changes" style={{ margin: '4px 0 0', paddingLeft: 18 }}>
      {entries.map(([field, pair]) => {
        const [before, after] = Array.isArray(pair) ? pair : [undefined, pair]
        return (
          <li key={field}>{fieldName(field)}: <del>{show(field, before)}</del> → <ins>{show(field, after)}</ins></li>
        )
      })}
    </ul>
  )
}

/** "assignee_agent_id" -> "Assignee", "monthly_budget_cents" -> "Monthly budget". */
const fieldName = (field: string) => humanize(field.replace(/_agent_id$|_id$|_cents$/, ''))
