// The fields of an agent, for hiring and for editing. Role and adapter are free text with the
// offered values as suggestions.
import type { Agent, AgentFields } from '#src/client/types.ts'
import { centsToInput, parseCents } from '../../lib/format.ts'
import { useForm } from '../../lib/useForm.ts'
import { AgentPicker, idOrNull } from '../Pickers.tsx'
import { Field } from '../form.tsx'

const ROLES = ['ceo', 'cto', 'cmo', 'cfo', 'engineer', 'designer', 'qa', 'devops', 'researcher', 'writer', 'support']
const ADAPTERS = ['agent_cli_1', 'agent_cli_2', 'agent_cli_3', 'agent_cli_4', 'agent_cli_5', 'http', 'simulated']

export function useAgentForm(agent?: Agent) {
  const form = useForm({
    name: agent?.name ?? '',
    title: agent?.title ?? '',
    role: agent?.role ?? 'engineer',
    adapter: agent?.adapter ?? 'agent_cli_1',
    reports: agent?.reports_to_id ?? '',
    budget: centsToInput(agent?.monthly_budget_cents),
    cron: agent?.heartbeat_cron ?? '',
    instructions: agent?.instructions ?? '',
  })
  /** The request body, or an Error naming the bad field. */
  function fields(): AgentFields & { name: string } {
    const v = form.values
    const budget = parseCents(v.budget)
    if (budget === null) throw new Error('Monthly budget: enter an amount such as 25 or 12.50.')
    return {
      name: v.name.trim(),
      title: v.title.trim() || null,
      role: v.role.trim() || null,
      adapter: v.adapter.trim() || null,
      reports_to_id: idOrNull(v.reports),
      monthly_budget_cents: budget,
      heartbeat_cron: v.cron.trim() || null,
      instructions: v.instructions.trim() || null,
    }
  }
  return { form, fields }
}

export function AgentFormFields({ form, agentId }: { form: ReturnType<typeof useAgentForm>['form']; agentId?: string }) {
  const v = form.values
  return (
    <>
      <div className="form-grid">
        <Field label="Name"><input required maxLength={100} {...form.bind('name')} /></Field>
        <Field label="Title"><input maxLength={120} {...form.bind('title')} /></Field>
        <Field label="Role"><input list="agent-roles" maxLength={50} {...form.bind('role')} /></Field>
        <Field label="Adapter"><input list="agent-adapters" maxLength={50} {...form.bind('adapter')} /></Field>
        <AgentPicker label="Reports to" none="Nobody" exclude={agentId} value={v.reports} onChange={(id) => form.setValues({ ...v, reports: id })} />
        <Field label="Monthly budget" hint="blank = no limit"><input inputMode="decimal" placeholder="0.00" {...form.bind('budget')} /></Field>
        <Field label="Heartbeat cron" hint="optional"><input placeholder="0 9 * * 1-5" maxLength={100} {...form.bind('cron')} /></Field>
      </div>
      <Field label="Instructions"><textarea {...form.bind('instructions')} /></Field>
      <datalist id="agent-roles">{ROLES.map((r) => <option key={r} value={r} />)}</datalist>
      <datalist id="agent-adapters">{ADAPTERS.map((a) => <option key={a} value={a} />)}</datalist>
    </>
  )
}
