// A task's story in order: comments, runs, and its status and assignee changes (from the audit
// trail), each run with its transcript inline (live while the run runs; tool calls one line
// each; runs/RunItem.tsx), and the composer that posts a comment, a question's answer
// or a plan, saying beforehand when posting wakes the assigned agent.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useState } from 'react'
import type { AuditEvent, Comment, CommentKind, Run, Task } from '#src/client/types.ts'
import { api } from '../../lib/api.ts'
import { humanize } from '../../lib/format.ts'
import { useFormat } from '../../lib/preferences.tsx'
import { keys, useAgents, useComments, useMembers, useRuns, useTaskChanges } from '../../lib/queries.ts'
import { useForm, useSubmit } from '../../lib/useForm.ts'
import { auditActor, useAgentName } from '../../lib/names.ts'
import { Badge } from '../Badge.tsx'
import { ErrorText } from '../ErrorText.tsx'
import { Field } from '../form.tsx'
import { RunItem } from '../runs/RunItem.tsx'
import { Markdown } from '../Markdown.tsx'
import { useTick } from '../../lib/tick.ts'

type Item =
  | { at: number; kind: 'comment'; comment: Comment }
  | { at: number; kind: 'run'; run: Run }
  | { at: number; kind: 'change'; change: AuditEvent }

/** An audit event of the task that moved it or changed its assignee (others stay on the Activity page). */
const isStatusOrAssignee = (event: AuditEvent) => event.verb !== 'created' && ('status' in event.changes || 'assignee_agent_id' in event.changes)

// At the same instant what queues a run (an assignment, a comment waking the agent) comes before the run.
const KIND_ORDER: Record<Item['kind'], number> = { change: 0, comment: 1, run: 2 }

/**
 * When a run shows on the timeline: when it started, the time its line says, once it has (a run
 * queued before a comment but started after it did its work after it); until then when it was
 * queued. The audit event of an assignment is stamped as its write commits, after the run it
 * queued was made (a few milliseconds, or the same instant): by time alone the queued run came
 * before its cause. So a run queued by an assignment shows at the time of the assignment to its
 * agent nearest to it when that one is later.
 */
export function runTime(run: Pick<Run, 'created_at' | 'started_at' | 'trigger' | 'agent_id'>, changes: AuditEvent[]): number {
  if (run.started_at) return Date.parse(run.started_at)
  const at = Date.parse(run.created_at ?? '')
  if (run.trigger !== 'assignment') return at
  const assigned = changes.filter((c) => c.changes.assignee_agent_id?.[1] === run.agent_id).map((c) => Date.parse(c.created_at))
  const nearest = assigned.sort((a, b) => Math.abs(a - at) - Math.abs(b - at))[0]
  return nearest !== undefined && nearest > at ? nearest : at
}

/** `current`: the run the page shows at its top (live, with its transcript), folded here. */
export function TaskTimeline({ companyId, task, current }: { companyId: string; task: Task; current?: string }) {
  useTick() // "2 minutes ago" keeps moving
  const comments = useComments(companyId, task.id)
  const runs = useRuns(companyId, { task_id: task.id })
  const changes = useTaskChanges(companyId, task.id)
  const shownChanges = (changes.data ?? []).filter(isStatusOrAssignee)
  const items: Item[] = [
    ...(comments.data ?? []).map((comment): Item => ({ at: Date.parse(comment.created_at), kind: 'comment', comment })),
    ...(runs.data ?? []).map((run): Item => ({ at: runTime(run, shownChanges), kind: 'run', run })),
    ...shownChanges.map((change): Item => ({ at: Date.parse(change.created_at), kind: 'change', change })),
  ].sort((a, b) => a.at - b.at || KIND_ORDER[a.kind] - KIND_ORDER[b.kind])
  return (
    <section className="panel" aria-label="Timeline">
      <h2>Timeline</h2>
      <ErrorText error={comments.error ?? runs.error ?? changes.error} retry={() => { void comments.refetch(); void runs.refetch(); void changes.refetch() }} />
      {comments.data && runs.data && items.length === 0 && <p className="empty">Nothing has happened on this task yet.</p>}
      <ol className="timeline">
        {items.map((item) => (item.kind === 'comment'
          ? <CommentItem key={item.comment.id} companyId={companyId} task={task} comment={item.comment} />
          : item.kind === 'run'
            ? <RunItem key={item.run.id} companyId={companyId} run={item.run} repliesInComments shownAbove={item.run.id === current} />
            : <ChangeItem key={item.change.id} companyId={companyId} change={item.change} />))}
      </ol>
      <Composer companyId={companyId} task={task} />
    </section>
  )
}

function useAuthor(companyId: string) {
  const agentName = useAgentName(companyId)
  const members = useMembers(companyId)
  return (userId: string | null, agentId: string | null) =>
    (agentId && (agentName(agentId) ?? 'an agent no longer here')) || (userId && members.data?.find((m) => m.user_id === userId)?.name) || 'Someone'
}

function CommentItem({ companyId, task, comment }: { companyId: string; task: Task; comment: Comment }) {
  const client = useQueryClient()
  const format = useFormat()
  const author = useAuthor(companyId)
  const [editing, setEditing] = useState(false)
  const refresh = () => client.invalidateQueries({ queryKey: keys.company(companyId, 'comments', task.id) })
  const remove = useMutation({ mutationFn: () => api.comments.delete(companyId, task.id, comment.id), onSuccess: refresh })
  const edited = comment.updated_at !== comment.created_at
  return (
    <li className="comment">
      <div className="row small">
        <strong>{author(comment.author_user_id, comment.author_agent_id)}</strong>
        {comment.kind !== 'comment' && <Badge value={comment.kind} />}
        <span className="muted" title={format.dateTime(comment.created_at)}>{format.relative(comment.created_at)}</span>
        {edited && <span className="muted" title={format.dateTime(comment.updated_at)}>(edited)</span>}
        {comment.run_id && <Link className="small" to="/c/$companyId/runs/$runId" params={{ companyId, runId: comment.run_id }}>from its run</Link>}
        <span className="grow" />
        {!editing && <button className="link small" onClick={() => setEditing(true)} aria-label="Edit comment">Edit</button>}
        <button className="link small" onClick={() => window.confirm('Delete this comment?') && remove.mutate()} aria-label="Delete comment">Delete</button>
      </div>
      <ErrorText error={remove.error} />
      {editing
        ? <CommentEditor companyId={companyId} task={task} comment={comment} onDone={() => setEditing(false)} />
        : <Markdown className="body" text={comment.body} />}
    </li>
  )
}

/** A comment's text and kind, changed in place. */
function CommentEditor({ companyId, task, comment, onDone }: { companyId: string; task: Task; comment: Comment; onDone: () => void }) {
  const client = useQueryClient()
  const form = useForm({ body: comment.body, kind: comment.kind as string })
  const submit = useSubmit(async () => {
    await api.comments.update(companyId, task.id, comment.id, { body: form.values.body, kind: form.values.kind as CommentKind })
    await client.invalidateQueries({ queryKey: keys.company(companyId, 'comments', task.id) })
    onDone()
  })
  return (
    <form onSubmit={submit.onSubmit} aria-label="Edit comment">
      <ErrorText error={submit.error} />
      <textarea required aria-label="Comment" autoFocus {...form.bind('body')} />
      <div className="actions">
        <select aria-label="Kind" style={{ width: 'auto' }} {...form.bind('kind')}>
          {KINDS.map((k) => <option key={k.value} value={k.value}>{k.label}</option>)}
        </select>
        <button className="primary" type="submit" disabled={submit.pending}>Save</button>
        <button type="button" onClick={onDone}>Cancel</button>
      </div>
    </form>
  )
}

/** "Ada moved it from Todo to In progress and assigned it to Grace", in the words of the audit event. */
function ChangeItem({ companyId, change }: { companyId: string; change: AuditEvent }) {
  const format = useFormat()
  const names = useAgentName(companyId)
  const agentName = (id: unknown) => names(String(id)) ?? 'an agent no longer here'
  const said: string[] = []
  const status = change.changes.status
  if (status) said.push(`moved it from ${humanize(String(status[0]))} to ${humanize(String(status[1]))}`)
  const assignee = change.changes.assignee_agent_id
  if (assignee) said.push(assignee[1] ? `assigned it to ${agentName(assignee[1])}` : `unassigned ${agentName(assignee[0])}`)
  const actor = auditActor(change).name
  return (
    <li className="change-item small" aria-label={`${actor} ${said.join(' and ')}`}>
      <strong>{actor}</strong> {said.join(' and ')}
      {' '}<span className="muted" title={format.dateTime(change.created_at)}>{format.relative(change.created_at)}</span>
    </li>
  )
}

const KINDS: { value: CommentKind; label: string }[] = [
  { value: 'comment', label: 'Comment' },
  { value: 'question', label: 'Question' },
  { value: 'plan', label: 'Plan' },
]

function Composer({ companyId, task }: { companyId: string; task: Task }) {
  const client = useQueryClient()
  const agents = useAgents(companyId, true)
  const form = useForm({ body: '', kind: 'comment' })
  const [posted, setPosted] = useState<string | null>(null)
  const assignee = agents.data?.find((a) => a.id === task.assignee_agent_id)
  // A person's comment on a task an agent's run left blocked wakes its assignee (API-DECISIONS.md).
  const wakes = task.status === 'blocked' && assignee && assignee.status !== 'terminated' ? assignee : null
  const submit = useSubmit(async () => {
    await api.comments.create(companyId, task.id, { body: form.values.body, kind: form.values.kind as CommentKind })
    form.reset()
    setPosted(wakes ? `Posted. ${wakes.name} is woken to read it.` : 'Posted.')
    await client.invalidateQueries({ queryKey: keys.company(companyId, 'comments', task.id) })
    void client.invalidateQueries({ queryKey: keys.company(companyId, 'runs') })
  })
  return (
    <form onSubmit={submit.onSubmit} style={{ marginTop: 12 }} aria-label="Add to the timeline">
      <ErrorText error={submit.error} />
      {wakes && <p className="notice small">{wakes.name} is waiting on this blocked task: posting wakes {wakes.name} to read it.</p>}
      <Field label="Add a comment"><textarea required {...form.bind('body')} onInput={() => setPosted(null)} /></Field>
      <div className="actions">
        <select aria-label="Kind" style={{ width: 'auto' }} {...form.bind('kind')}>
          {KINDS.map((k) => <option key={k.value} value={k.value}>{k.label}</option>)}
        </select>
        <button className="primary" type="submit" disabled={submit.pending}>Post</button>
        {posted && <span className="muted small" role="status">{posted}</span>}
      </div>
    </form>
  )
}
