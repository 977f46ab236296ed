import { useQueryClient } from '@tanstack/react-query'
import { TASK_PRIORITIES, TASK_STATUSES, type Task, type TaskPriority, type TaskStatus } from '#src/client/types.ts'
import { api } from '../../lib/api.ts'
import { humanize } from '../../lib/format.ts'
import { keys } from '../../lib/queries.ts'
import { useForm, useSubmit } from '../../lib/useForm.ts'
import { AgentPicker, GoalPicker, idOrNull, ProjectPicker } from '../Pickers.tsx'
import { dayToTimestamp } from './TaskFields.ts'
import { Field, FormDialog } from '../form.tsx'

interface Props {
  companyId: string
  parent?: Task
  onClose: () => void
  onCreated?: (task: Task) => void
  /** What the title field starts with (the command palette passes what was typed). */
  initialTitle?: string
}

/** Creates a task (a subtask when `parent` is given). */
export function NewTaskDialog({ companyId, parent, onClose, onCreated, initialTitle = '' }: Props) {
  const client = useQueryClient()
  const form = useForm({
    title: initialTitle,
    description: '',
    status: 'todo',
    priority: 'medium',
    assignee: '',
    project: parent?.project_id ?? '',
    goal: parent?.goal_id ?? '',
    due: '',
  })
  const v = form.values
  const submit = useSubmit(async () => {
    const task = await api.tasks.create(companyId, {
      title: v.title.trim(),
      description: v.description.trim() || null,
      status: v.status as TaskStatus,
      priority: v.priority as TaskPriority,
      assignee_agent_id: idOrNull(v.assignee),
      project_id: idOrNull(v.project),
      goal_id: idOrNull(v.goal),
      parent_id: parent?.id ?? null,
      due_date: dayToTimestamp(v.due),
    })
    void client.invalidateQueries({ queryKey: keys.company(companyId, 'tasks') })
    onCreated?.(task)
    onClose()
  })
  return (
    <FormDialog title={parent ? `New subtask of ${parent.key}` : 'New task'} submit={submit} submitLabel="Create task" onClose={onClose}>
      <Field label="Title"><input required maxLength={300} autoFocus {...form.bind('title')} /></Field>
      <Field label="Description"><textarea {...form.bind('description')} /></Field>
      <div className="form-grid">
        <label className="field">Status
          <select {...form.bind('status')}>{TASK_STATUSES.map((s) => <option key={s} value={s}>{humanize(s)}</option>)}</select>
        </label>
        <label className="field">Priority
          <select {...form.bind('priority')}>{TASK_PRIORITIES.map((p) => <option key={p} value={p}>{humanize(p)}</option>)}</select>
        </label>
        <AgentPicker label="Assignee" none="Unassigned" value={v.assignee} onChange={(id) => form.setValues({ ...v, assignee: id })} />
        <ProjectPicker label="Project" value={v.project} onChange={(id) => form.setValues({ ...v, project: id })} />
        <GoalPicker label="Goal" value={v.goal} onChange={(id) => form.setValues({ ...v, goal: id })} />
        <Field label="Due date"><input type="date" {...form.bind('due')} /></Field>
      </div>
    </FormDialog>
  )
}
