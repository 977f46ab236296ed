import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { Goal, GoalStatus, GoalUpdate } from '#src/client/types.ts'
import { ErrorText } from '../components/ErrorText.tsx'
import { AgentPicker, GoalPicker, idOrNull } from '../components/Pickers.tsx'
import { dayToTimestamp, timestampToDay } from '../components/tasks/TaskFields.ts'
import { api } from '../lib/api.ts'
import { useCompanyId } from '../lib/company.ts'
import { humanize } from '../lib/format.ts'
import { useFormat } from '../lib/preferences.tsx'
import { keys, useAgents, useGoals } from '../lib/queries.ts'
import { Link } from '@tanstack/react-router'
import { useForm, useSubmit } from '../lib/useForm.ts'
import { Field, FormDialog } from '../components/form.tsx'

const STATUSES: GoalStatus[] = ['planned', 'active', 'achieved', 'abandoned']

/** Goals as a tree (sub-goals under their parent), with progress from linked tasks. */
export function GoalsPage() {
  const companyId = useCompanyId()
  const goals = useGoals(companyId)
  const [creating, setCreating] = useState(false)
  const all = goals.data ?? []
  const ids = new Set(all.map((g) => g.id))
  const roots = all.filter((g) => !g.parent_id || !ids.has(g.parent_id))
  return (
    <>
      <div className="page-head"><h1>Goals</h1><button className="primary" onClick={() => setCreating(true)}>New goal</button></div>
      <ErrorText error={goals.error} retry={() => void goals.refetch()} />
      {goals.data?.length === 0 && <p className="empty">No goals yet.</p>}
      {roots.length > 0 && <div className="panel tree"><ul>{roots.map((goal) => <GoalNode key={goal.id} goal={goal} all={all} companyId={companyId} />)}</ul></div>}
      {creating && <GoalDialog companyId={companyId} onClose={() => setCreating(false)} />}
    </>
  )
}

function GoalNode({ goal, all, companyId }: { goal: Goal; all: Goal[]; companyId: string }) {
  const client = useQueryClient()
  const format = useFormat()
  const agents = useAgents(companyId)
  const [editing, setEditing] = useState(false)
  const children = all.filter((g) => g.parent_id === goal.id)
  const owner = agents.data?.find((a) => a.id === goal.owner_agent_id)
  const refresh = () => client.invalidateQueries({ queryKey: keys.company(companyId, 'goals') })
  const update = useMutation({ mutationFn: (body: GoalUpdate) => api.goals.update(companyId, goal.id, body), onSuccess: refresh })
  const remove = useMutation({ mutationFn: () => api.goals.delete(companyId, goal.id), onSuccess: refresh })
  const done = goal.tasks_done ?? 0
  const total = goal.tasks_total ?? 0
  return (
    <li>
      <div className="row">
        <strong>{goal.title}</strong>
        <select aria-label={`Status of ${goal.title}`} value={goal.status} style={{ width: 'auto' }} onChange={(e) => update.mutate({ status: e.target.value as GoalStatus })}>
          {STATUSES.map((s) => <option key={s} value={s}>{humanize(s)}</option>)}
        </select>
        <Link to="/c/$companyId/tasks" params={{ companyId }} search={{ goal_id: goal.id }} className="small">{done} of {total} tasks done</Link>
        {owner && <span className="muted small">owner {owner.name}</span>}
        {goal.target_date && <span className="muted small">target {format.date(goal.target_date)}</span>}
        <button className="link small" onClick={() => setEditing(true)}>Edit</button>
        <button className="link danger small" onClick={() => window.confirm(`Delete the goal “${goal.title}”? Sub-goals and tasks stay, detached.`) && remove.mutate()}>Delete</button>
      </div>
      {editing && <GoalDialog companyId={companyId} goal={goal} onClose={() => setEditing(false)} />}
      {goal.description && <div className="muted small">{goal.description}</div>}
      <ErrorText error={update.error ?? remove.error} />
      {children.length > 0 && <ul>{children.map((child) => <GoalNode key={child.id} goal={child} all={all} companyId={companyId} />)}</ul>}
    </li>
  )
}

/** Creates a goal, or edits the one given. */
function GoalDialog({ companyId, goal, onClose }: { companyId: string; goal?: Goal; onClose: () => void }) {
  const client = useQueryClient()
  const form = useForm({
    title: goal?.title ?? '',
    description: goal?.description ?? '',
    status: goal?.status ?? 'active',
    parent: goal?.parent_id ?? '',
    owner: goal?.owner_agent_id ?? '',
    target: timestampToDay(goal?.target_date ?? null),
  })
  const v = form.values
  const submit = useSubmit(async () => {
    const body = {
      title: v.title.trim(),
      description: v.description.trim() || null,
      status: v.status as GoalStatus,
      parent_id: idOrNull(v.parent),
      owner_agent_id: idOrNull(v.owner),
      target_date: dayToTimestamp(v.target),
    }
    if (goal) await api.goals.update(companyId, goal.id, body)
    else await api.goals.create(companyId, body)
    await client.invalidateQueries({ queryKey: keys.company(companyId, 'goals') })
    onClose()
  })
  return (
    <FormDialog title={goal ? 'Edit goal' : 'New goal'} submit={submit} submitLabel={goal ? 'Save' : 'Create goal'} onClose={onClose}>
      <Field label="Title"><input required maxLength={200} autoFocus {...form.bind('title')} /></Field>
      <Field label="Description"><textarea {...form.bind('description')} /></Field>
      <div className="form-grid">
        <Field label="Status"><select {...form.bind('status')}>{STATUSES.map((s) => <option key={s} value={s}>{humanize(s)}</option>)}</select></Field>
        <GoalPicker label="Part of" value={v.parent} exclude={goal?.id} onChange={(id) => form.setValues({ ...v, parent: id })} />
        <AgentPicker label="Owner" value={v.owner} onChange={(id) => form.setValues({ ...v, owner: id })} />
        <Field label="Target date"><input type="date" {...form.bind('target')} /></Field>
      </div>
    </FormDialog>
  )
}
