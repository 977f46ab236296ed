import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { TASK_PRIORITIES, TASK_STATUSES, type Task, type TaskUpdate } from '#src/client/types.ts'
import { Badge } from '../components/Badge.tsx'
import { ErrorText } from '../components/ErrorText.tsx'
import { AgentPicker, GoalPicker, idOrNull, ProjectPicker } from '../components/Pickers.tsx'
import { FreshSessionButton } from '../components/tasks/FreshSession.tsx'
import { NewTaskDialog } from '../components/tasks/NewTaskDialog.tsx'
import { TaskTimeline } from '../components/tasks/TaskTimeline.tsx'
import { currentRun } from '../components/agents/AgentWork.tsx'
import { RunItem } from '../components/runs/RunItem.tsx'
import { SubtaskTree } from '../components/tasks/SubtaskTree.tsx'
import { ReviewBar } from '../components/work/ReviewBar.tsx'
import { TaskChanges } from '../components/work/TaskChanges.tsx'
import { dayToTimestamp, timestampToDay } from '../components/tasks/TaskFields.ts'
import { api } from '../lib/api.ts'
import { useCompanyId } from '../lib/company.ts'
import { humanize } from '../lib/format.ts'
import { useFormat } from '../lib/preferences.tsx'
import { useAgentName } from '../lib/names.ts'
import { keys, useRuns, useTask } from '../lib/queries.ts'
import { Link, useNavigate, useParams } from '@tanstack/react-router'

export function TaskPage() {
  const companyId = useCompanyId()
  const { taskRef } = useParams({ from: '/signed-in/c/$companyId/tasks/$taskRef' })
  const task = useTask(companyId, taskRef)
  if (task.error) {
    return <ErrorText error={task.error} retry={() => void task.refetch()} back={<Link to="/c/$companyId/tasks" params={{ companyId }}>Back to the tasks</Link>} />
  }
  if (!task.data) return <p className="muted">Loading…</p>
  return <TaskDetail companyId={companyId} task={task.data} />
}

function TaskDetail({ companyId, task }: { companyId: string; task: Task }) {
  const navigate = useNavigate()
  const client = useQueryClient()
  const format = useFormat()
  const parent = useTask(companyId, task.parent_id ?? '')
  const [addingSubtask, setAddingSubtask] = useState(false)
  const [title, setTitle] = useState(task.title)
  const [description, setDescription] = useState(task.description ?? '')
  // A change saved elsewhere (another person, an agent) replaces the text shown.
  useEffect(() => setTitle(task.title), [task.title])
  useEffect(() => setDescription(task.description ?? ''), [task.description])
  const update = useMutation({
    // One change at a time, in the order made, so quick successive edits land as made.
    scope: { id: `task-${task.id}` },
    mutationFn: (body: TaskUpdate) => api.tasks.update(companyId, task.id, body),
    onSuccess(updated) {
      client.setQueryData(keys.company(companyId, 'tasks', 'one', task.key), updated)
      void client.invalidateQueries({ queryKey: keys.company(companyId, 'tasks') })
    },
  })
  const remove = useMutation({
    mutationFn: () => api.tasks.delete(companyId, task.id),
    onSuccess() {
      void client.invalidateQueries({ queryKey: keys.company(companyId, 'tasks') })
      navigate({ to: '/c/$companyId/tasks', params: { companyId } })
    },
  })
  const textChanged = title !== task.title || description !== (task.description ?? '')
  // The run working on the task now (or the next one waiting, else the last one), shown first with its transcript.
  const runs = useRuns(companyId, { task_id: task.id })
  const inOrder = [...(runs.data ?? [])].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at))
  const current = currentRun(inOrder) ?? inOrder.at(-1)
  const live = current?.status === 'running' || current?.status === 'queued'

  return (
    <>
      <p><Link to="/c/$companyId/tasks" params={{ companyId }}>← Tasks</Link>{parent.data && task.parent_id && <> · subtask of <Link to="/c/$companyId/tasks/$taskRef" params={{ companyId, taskRef: parent.data.key }}>{parent.data.key}</Link></>}</p>
      <div className="page-head">
        <h1><span className="muted">{task.key}</span> {task.title}</h1>
        <div className="actions">
          <Badge value={task.status} />
          <FreshSessionButton companyId={companyId} task={task} />
          <button className="danger" onClick={() => window.confirm(`Delete ${task.key}? Its comments go with it.`) && remove.mutate()}>Delete</button>
        </div>
      </div>
      <ErrorText error={update.error ?? remove.error} />
      {/* Work first: what the agent does now, then the task's text and story; its fields at the side
          (on a phone: after the text). Further sections (changes, checks, review) go in task-main. */}
      <div className="task-layout">
        <div className="task-main">
          <LastRunProblem companyId={companyId} task={task} />
          <ReviewBar companyId={companyId} task={task} />
          {current && (
            <section className="panel" aria-label="Latest run">
              <h2>{live ? 'Now' : 'Latest run'}</h2>
              <ol className="timeline"><RunItem key={current.id} companyId={companyId} run={current} repliesInComments /></ol>
            </section>
          )}
          <section className="panel" aria-label="Details">
            <form onSubmit={(e) => { e.preventDefault(); update.mutate({ title: title.trim(), description: description.trim() || null }) }}>
              <label className="field">Title<input required maxLength={300} value={title} onChange={(e) => setTitle(e.target.value)} /></label>
              <label className="field">Description<textarea rows={5} value={description} onChange={(e) => setDescription(e.target.value)} /></label>
              <button type="submit" className="primary" disabled={!textChanged || update.isPending}>Save text</button>
            </form>
          </section>
        </div>
        <section className="panel task-side" aria-label="Fields">
          <div className="properties">
            <label className="field">Status
              <select value={task.status} onChange={(e) => update.mutate({ status: e.target.value as Task['status'] })}>
                {TASK_STATUSES.map((s) => <option key={s} value={s}>{humanize(s)}</option>)}
              </select>
            </label>
            <label className="field">Priority
              <select value={task.priority} onChange={(e) => update.mutate({ priority: e.target.value as Task['priority'] })}>
                {TASK_PRIORITIES.map((p) => <option key={p} value={p}>{humanize(p)}</option>)}
              </select>
            </label>
            <AgentPicker label="Assignee" none="Unassigned" value={task.assignee_agent_id ?? ''} onChange={(id) => update.mutate({ assignee_agent_id: idOrNull(id) })} />
            <ProjectPicker label="Project" value={task.project_id ?? ''} onChange={(id) => update.mutate({ project_id: idOrNull(id) })} />
            <GoalPicker label="Goal" value={task.goal_id ?? ''} onChange={(id) => update.mutate({ goal_id: idOrNull(id) })} />
            <label className="field">Due date
              <input type="date" value={timestampToDay(task.due_date)} onChange={(e) => update.mutate({ due_date: dayToTimestamp(e.target.value) })} />
            </label>
          </div>
          <dl className="muted small stamps">
            <dt>Created</dt><dd>{format.dateTime(task.created_at)}</dd>
            <dt>First started</dt><dd>{format.dateTime(task.started_at)}</dd>
            <dt>Completed</dt><dd>{format.dateTime(task.completed_at)}</dd>
          </dl>
        </section>
        <div className="task-main task-story">
          <section className="panel" aria-label="Subtasks">
            <div className="page-head" style={{ marginBottom: 8 }}>
              <h2 style={{ margin: 0 }}>Subtasks</h2>
              <button onClick={() => setAddingSubtask(true)}>Add subtask</button>
            </div>
            <SubtaskTree companyId={companyId} root={task} />
          </section>
          <TaskChanges companyId={companyId} task={task} />
          <TaskTimeline companyId={companyId} task={task} current={current?.id} />
        </div>
      </div>
      {addingSubtask && <NewTaskDialog companyId={companyId} parent={task} onClose={() => setAddingSubtask(false)} />}
    </>
  )
}

/**
 * When the task's latest run failed or was cancelled, say so at the top: who, when, the run's
 * error, and where the task stands now (a run that had started the task returns it to the
 * status it had before; API-DECISIONS.md "Tasks after a failed run").
 */
function LastRunProblem({ companyId, task }: { companyId: string; task: Task }) {
  const format = useFormat()
  const agentName = useAgentName(companyId)
  const runs = useRuns(companyId, { task_id: task.id })
  const last = [...(runs.data ?? [])].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at))[0]
  if (!last || (last.status !== 'failed' && last.status !== 'cancelled')) return null
  const who = agentName(last.agent_id) ?? 'An agent'
  const how = last.status === 'failed' ? 'failed' : 'was cancelled'
  return (
    <div className="error" role="note" aria-label="Last run">
      <strong>{who}'s last run {how}</strong> {format.relative(last.ended_at ?? last.created_at)}
      {last.error && <>: {last.error.replace(/[.\s]+$/, '')}</>}. The task is now {humanize(task.status)}.{' '}
      <Link to="/c/$companyId/runs/$runId" params={{ companyId, runId: last.id }}>Open the run</Link>
    </div>
  )
}
