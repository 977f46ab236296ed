import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import type { Routine, RoutineUpdate } from '#src/client/types.ts'
import { ErrorText } from '../components/ErrorText.tsx'
import { AgentPicker, idOrNull, ProjectPicker } from '../components/Pickers.tsx'
import { api } from '../lib/api.ts'
import { useCompanyId } from '../lib/company.ts'
import { cronInWords } from '../lib/cron-words.ts'
import { useFormat } from '../lib/preferences.tsx'
import { keys, useAgents, useRoutines } from '../lib/queries.ts'
import { nextFire } from '#src/contract/schedule.ts'
import { Link, useNavigate, useSearch } from '@tanstack/react-router'
import { useForm, useSubmit } from '../lib/useForm.ts'
import { Field, FormDialog } from '../components/form.tsx'

/** Cron-scheduled templates; "Run now" triggers one at once (a task and a queued run). */
export function RoutinesPage() {
  const companyId = useCompanyId()
  const routines = useRoutines(companyId)
  const [creating, setCreating] = useState(false)
  // Opened from the palette ("?new=1"): the dialog opens, and the address forgets it.
  const opened = useSearch({ from: '/signed-in/c/$companyId/routines' }).new
  const go = useNavigate()
  useEffect(() => {
    if (!opened) return
    setCreating(true)
    void go({ to: '.', search: {}, replace: true })
  }, [opened])
  return (
    <>
      <div className="page-head"><h1>Routines</h1><button className="primary" onClick={() => setCreating(true)}>New routine</button></div>
      <ErrorText error={routines.error} retry={() => void routines.refetch()} />
      {routines.data?.length === 0 && <p className="empty">No routines yet.</p>}
      {routines.data && routines.data.length > 0 && (
        <div className="panel table-wrap">
          <table className="stack">
            <thead><tr><th>Routine</th><th>Agent</th><th>Schedule</th><th>Next run</th><th className="hide-phone">Last run</th><th>Enabled</th><th /></tr></thead>
            <tbody>{routines.data.map((routine) => <RoutineRow key={routine.id} routine={routine} companyId={companyId} />)}</tbody>
          </table>
        </div>
      )}
      {creating && <RoutineDialog companyId={companyId} onClose={() => setCreating(false)} />}
    </>
  )
}

function RoutineRow({ routine, companyId }: { routine: Routine; companyId: string }) {
  const client = useQueryClient()
  const navigate = useNavigate()
  const format = useFormat()
  const [editing, setEditing] = useState(false)
  const agents = useAgents(companyId, true)
  const agent = agents.data?.find((a) => a.id === routine.agent_id)
  const refresh = () => client.invalidateQueries({ queryKey: keys.company(companyId) })
  const update = useMutation({ mutationFn: (body: RoutineUpdate) => api.routines.update(companyId, routine.id, body), onSuccess: refresh })
  const remove = useMutation({ mutationFn: () => api.routines.delete(companyId, routine.id), onSuccess: refresh })
  const trigger = useMutation({
    mutationFn: () => api.routines.trigger(companyId, routine.id),
    onSuccess(result) {
      void refresh()
      navigate({ to: '/c/$companyId/runs/$runId', params: { companyId, runId: result.run.id } })
    },
  })
  return (
    <tr>
      <td className="free title-cell">{routine.title}{routine.description && <div className="muted small">{routine.description}</div>}<ErrorText error={update.error ?? remove.error ?? trigger.error} /></td>
      <td data-label="Agent">{agent ? <Link to="/c/$companyId/agents/$agentId" params={{ companyId, agentId: agent.id }}>{agent.name}</Link> : '—'}</td>
      <td data-label="Schedule" title={routine.cron}>{cronInWords(routine.cron)}</td>
      <td data-label="Next run" className="nowrap"><NextRun routine={routine} /></td>
      <td className="hide-phone muted">{format.relative(routine.last_run_at)}</td>
      <td data-label="Enabled"><input type="checkbox" aria-label={`Enable ${routine.title}`} checked={routine.enabled} onChange={(e) => update.mutate({ enabled: e.target.checked })} /></td>
      <td className="nowrap row-actions">
        <button onClick={() => trigger.mutate()} disabled={trigger.isPending}>Run now</button>{' '}
        <button className="link" onClick={() => setEditing(true)}>Edit</button>{' '}
        <button className="link danger" onClick={() => window.confirm(`Delete the routine “${routine.title}”? Its tasks and runs stay.`) && remove.mutate()}>Delete</button>
        {editing && <RoutineDialog companyId={companyId} routine={routine} onClose={() => setEditing(false)} />}
      </td>
    </tr>
  )
}

/** When the scheduler fires the routine next (in the person's time zone), or why it never will. */
function NextRun({ routine }: { routine: Routine }) {
  const format = useFormat()
  if (!routine.enabled) return <span className="muted">off</span>
  const next = nextFire(routine.cron)
  if ('error' in next) return <span className="danger-text" title={next.error}>not a valid schedule</span>
  if (!next.at) return <span className="muted">never</span>
  return <span title={format.dateTime(next.at)}>{format.relative(next.at)}</span>
}

/** Creates a routine, or edits the one given. */
function RoutineDialog({ companyId, routine, onClose }: { companyId: string; routine?: Routine; onClose: () => void }) {
  const client = useQueryClient()
  const form = useForm({
    title: routine?.title ?? '',
    description: routine?.description ?? '',
    cron: routine?.cron ?? '0 9 * * 1-5',
    agent: routine?.agent_id ?? '',
    project: routine?.project_id ?? '',
    enabled: routine?.enabled ?? true,
  })
  const v = form.values
  const format = useFormat()
  const next = nextFire(v.cron)
  const submit = useSubmit(async () => {
    if (!v.agent) throw new Error('Agent: choose the agent that runs this routine.')
    // The API stores any text (SPEC.md); one the scheduler cannot read would never fire.
    if ('error' in next) throw new Error(`Schedule: not a cron expression the scheduler can read (${next.error}).`)
    if (!next.at) throw new Error('Schedule: it never fires (no such date comes again).')
    const body = {
      agent_id: v.agent,
      title: v.title.trim(),
      cron: v.cron.trim(),
      description: v.description.trim() || null,
      project_id: idOrNull(v.project),
      enabled: v.enabled,
    }
    if (routine) await api.routines.update(companyId, routine.id, body)
    else await api.routines.create(companyId, body)
    await client.invalidateQueries({ queryKey: keys.company(companyId, 'routines') })
    onClose()
  })
  return (
    <FormDialog title={routine ? 'Edit routine' : 'New routine'} submit={submit} submitLabel={routine ? 'Save' : 'Create routine'} onClose={onClose}>
      <Field label="Title"><input required maxLength={200} autoFocus {...form.bind('title')} /></Field>
      <Field label="Description" hint="becomes the task's description"><textarea {...form.bind('description')} /></Field>
      <div className="form-grid">
        <AgentPicker label="Agent" none="Choose…" value={v.agent} onChange={(id) => form.setValues({ ...v, agent: id })} />
        <ProjectPicker label="Project" value={v.project} onChange={(id) => form.setValues({ ...v, project: id })} />
        <Field label="Schedule (cron)" hint="minute hour day month weekday, UTC"><input required maxLength={100} className="mono" {...form.bind('cron')} /></Field>
      </div>
      <p className={'error' in next ? 'small danger-text' : 'small muted'} role="status">
        {'error' in next ? `Not a valid schedule: ${next.error}` : next.at ? `Fires next ${format.dateTime(next.at)} (${format.relative(next.at)})` : 'Never fires'}
      </p>
      <label className="field check"><input type="checkbox" {...form.check('enabled')} /> Enabled</label>
    </FormDialog>
  )
}
