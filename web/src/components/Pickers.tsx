// Selects for the company's agents, projects and goals, with a "none" choice. Values are ids,
// '' meaning none.
import { useCompanyId } from '../lib/company.ts'
import { useAgents, useGoals, useProjects } from '../lib/queries.ts'

interface PickerProps {
  label: string
  value: string
  onChange: (id: string) => void
  none?: string
  exclude?: string
}

function Picker({ label, value, onChange, none = '— none —', options }: PickerProps & { options: { id: string; name: string }[] }) {
  return (
    <label className="field">
      {label}
      <select value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">{none}</option>
        {options.map((option) => <option key={option.id} value={option.id}>{option.name}</option>)}
      </select>
    </label>
  )
}

export function AgentPicker(props: PickerProps) {
  const agents = useAgents(useCompanyId())
  const options = (agents.data ?? []).filter((a) => a.id !== props.exclude).map((a) => ({ id: a.id, name: a.title ? `${a.name} (${a.title})` : a.name }))
  return <Picker {...props} options={options} />
}

export function ProjectPicker(props: PickerProps) {
  const projects = useProjects(useCompanyId())
  return <Picker {...props} options={(projects.data ?? []).map((p) => ({ id: p.id, name: p.name }))} />
}

export function GoalPicker(props: PickerProps) {
  const goals = useGoals(useCompanyId())
  return <Picker {...props} options={(goals.data ?? []).filter((g) => g.id !== props.exclude).map((g) => ({ id: g.id, name: g.title }))} />
}

/** '' -> null, for optional foreign keys in request bodies. */
export const idOrNull = (value: string) => (value === '' ? null : value)
