import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { CheckInput, Project, ProjectStatus } from '#src/client/types.ts'
import { ErrorText } from '../components/ErrorText.tsx'
import { api } from '../lib/api.ts'
import { useCompanyId } from '../lib/company.ts'
import { centsToInput, humanize, parseCents } from '../lib/format.ts'
import { useFormat, useSavePreferences } from '../lib/preferences.tsx'
import { keys, useMe, useProjects } from '../lib/queries.ts'
import { Link } from '@tanstack/react-router'
import { useForm, useSubmit } from '../lib/useForm.ts'
import { Field, FormDialog } from '../components/form.tsx'
import { AgentPicker, idOrNull } from '../components/Pickers.tsx'
import { ChecksEditor } from '../components/work/ChecksEditor.tsx'

const STATUSES: ProjectStatus[] = ['active', 'paused', 'completed', 'archived']

export function ProjectsPage() {
  const companyId = useCompanyId()
  const projects = useProjects(companyId)
  const me = useMe()
  const [creating, setCreating] = useState(false)
  const favorites = me.data?.preferences.favorites?.projects ?? []
  // Favourites first, then by name.
  const sorted = [...(projects.data ?? [])].sort((a, b) => Number(favorites.includes(b.id)) - Number(favorites.includes(a.id)) || a.name.localeCompare(b.name))
  return (
    <>
      <div className="page-head"><h1>Projects</h1><button className="primary" onClick={() => setCreating(true)}>New project</button></div>
      <ErrorText error={projects.error} retry={() => void projects.refetch()} />
      {projects.data?.length === 0 && <p className="empty">No projects yet.</p>}
      {sorted.length > 0 && (
        <div className="panel table-wrap">
          <table className="stack">
            <thead><tr><th /><th>Project</th><th>Status</th><th className="hide-phone">Repository</th><th>Budget</th><th /></tr></thead>
            <tbody>{sorted.map((project) => <ProjectRow key={project.id} project={project} companyId={companyId} favorites={favorites} />)}</tbody>
          </table>
        </div>
      )}
      {creating && <ProjectDialog companyId={companyId} onClose={() => setCreating(false)} />}
    </>
  )
}

function ProjectRow({ project, companyId, favorites }: { project: Project; companyId: string; favorites: string[] }) {
  const client = useQueryClient()
  const format = useFormat()
  const save = useSavePreferences()
  const [editing, setEditing] = useState(false)
  const update = useMutation({
    mutationFn: (status: ProjectStatus) => api.projects.update(companyId, project.id, { status }),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.company(companyId, 'projects') }),
  })
  const starred = favorites.includes(project.id)
  return (
    <tr>
      <td className="lead">
        <button className="link" aria-pressed={starred} aria-label={starred ? `Remove ${project.name} from favourites` : `Add ${project.name} to favourites`}
          onClick={() => save.mutate({ favorites: { projects: starred ? favorites.filter((id) => id !== project.id) : [...favorites, project.id].slice(-50) } })}>
          {starred ? '★' : '☆'}
        </button>
      </td>
      <td className="free lead title-cell">
        <Link to="/c/$companyId/tasks" params={{ companyId }} search={{ project_id: project.id }}>{project.name}</Link>
        {project.description && <div className="muted small">{project.description}</div>}
        <ErrorText error={update.error} />
      </td>
      <td data-label="Status">
        <select aria-label={`Status of ${project.name}`} value={project.status} style={{ width: 'auto' }} onChange={(e) => update.mutate(e.target.value as ProjectStatus)}>
          {STATUSES.map((s) => <option key={s} value={s}>{humanize(s)}</option>)}
        </select>
      </td>
      <td className="hide-phone mono small free">{project.repository ?? '—'}</td>
      <td data-label="Budget">{project.monthly_budget_cents ? format.money(project.monthly_budget_cents) : '—'}</td>
      <td>
        <button className="link" onClick={() => setEditing(true)}>Edit</button>
        {editing && <ProjectDialog companyId={companyId} project={project} onClose={() => setEditing(false)} />}
      </td>
    </tr>
  )
}

/** Creates a project, or edits the one given (its status is changed in the list). */
function ProjectDialog({ companyId, project, onClose }: { companyId: string; project?: Project; onClose: () => void }) {
  const client = useQueryClient()
  const form = useForm({
    name: project?.name ?? '',
    description: project?.description ?? '',
    repository: project?.repository ?? '',
    budget: centsToInput(project?.monthly_budget_cents),
    default_branch: project?.default_branch ?? 'main',
    reviewer: project?.reviewer_agent_id ?? '',
  })
  const [checks, setChecks] = useState<CheckInput[]>(project?.checks ?? [])
  const [requireChecks, setRequireChecks] = useState(project?.require_checks ?? false)
  const [mergeOnApprove, setMergeOnApprove] = useState(project?.merge_on_approve ?? false)
  const v = form.values
  const submit = useSubmit(async () => {
    const budget = parseCents(v.budget)
    if (budget === null) throw new Error('Monthly budget: enter an amount such as 100 or 12.50.')
    const body = {
      name: v.name.trim(), description: v.description.trim() || null, repository: v.repository.trim() || null, monthly_budget_cents: budget,
      default_branch: v.default_branch.trim() || 'main', reviewer_agent_id: idOrNull(v.reviewer), require_checks: requireChecks,
      merge_on_approve: mergeOnApprove,
      checks: checks.map((c) => ({ name: c.name.trim(), command: c.command.trim(), timeout_seconds: c.timeout_seconds ?? 600 })),
    }
    if (project) await api.projects.update(companyId, project.id, body)
    else await api.projects.create(companyId, body)
    await client.invalidateQueries({ queryKey: keys.company(companyId, 'projects') })
    onClose()
  })
  return (
    <FormDialog title={project ? 'Edit project' : 'New project'} submit={submit} submitLabel={project ? 'Save' : 'Create project'} onClose={onClose}>
      <Field label="Name"><input required maxLength={100} autoFocus {...form.bind('name')} /></Field>
      <Field label="Description"><textarea {...form.bind('description')} /></Field>
      <Field label="Git repository" hint="runs work in a worktree of it"><input placeholder="https://github.com/org/repo.git" {...form.bind('repository')} /></Field>
      <Field label="Monthly budget" hint="informational"><input inputMode="decimal" placeholder="0.00" {...form.bind('budget')} /></Field>
      <Field label="Default branch" hint="task branches start here"><input maxLength={200} className="mono" {...form.bind('default_branch')} /></Field>
      <AgentPicker label="Reviewer agent" none="People only" value={v.reviewer} onChange={(id) => form.setValues({ ...v, reviewer: id })} />
      <ChecksEditor checks={checks} onChange={setChecks} />
      <label className="field work-toggle"><input type="checkbox" checked={requireChecks} onChange={(e) => setRequireChecks(e.target.checked)} style={{ width: 'auto' }} /> <span>Agents cannot mark a task done until its checks pass</span></label>
      <label className="field work-toggle"><input type="checkbox" checked={mergeOnApprove} onChange={(e) => setMergeOnApprove(e.target.checked)} style={{ width: 'auto' }} /> <span>Merge a task's branch into the default branch when its work is approved</span></label>
    </FormDialog>
  )
}
