// The fields of an agent, for hiring and for editing: role (free text with suggestions), the
// adapter picked by product name, and that adapter's own settings (adapter_config).
import type { Agent, AgentFields } from '#src/client/types.ts'
import { centsToInput, parseCents } from '../../lib/format.ts'
import { useForm } from '../../lib/useForm.ts'
import { ADAPTER_NAMES, configFromText, settingsOf, settingsText } from '../../lib/adapters.ts'
import { AgentPicker, idOrNull } from '../Pickers.tsx'
import { Field } from '../form.tsx'

const ROLES = ['ceo', 'cto', 'cmo', 'cfo', 'engineer', 'designer', 'qa', 'devops', 'researcher', 'writer', 'support']

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
    ...settingsText(agent?.adapter_config),
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
      adapter_config: configFromText(v.adapter, v),
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
        <Field label="Works with">
          <select {...form.bind('adapter')}>{ADAPTER_NAMES.map((a) => <option key={a.value} value={a.value}>{a.label}</option>)}</select>
        </Field>
        <AgentPicker label="Reports to" none="Nobody" exclude={agentId} value={v.reports} onChange={(id) => form.setValues({ ...v, reports: id })} />
        <Field label="Monthly budget" hint="blank = no limit"><input inputMode="decimal" placeholder="0.00" {...form.bind('budget')} /></Field>
        <Field label="Heartbeat cron" hint="optional"><input placeholder="0 9 * * 1-5" maxLength={100} {...form.bind('cron')} /></Field>
      </div>
      <AdapterSettings form={form} />
      <Field label="Instructions"><textarea {...form.bind('instructions')} /></Field>
      <datalist id="agent-roles">{ROLES.map((r) => <option key={r} value={r} />)}</datalist>
    </>
  )
}

/** The settings the chosen adapter takes, and only those. */
function AdapterSettings({ form }: { form: ReturnType<typeof useAgentForm>['form'] }) {
  const takes = new Set(settingsOf(form.values.adapter))
  if (takes.size === 0) return null
  return (
    <fieldset className="form-grid" aria-label="Adapter settings" style={{ border: 0, padding: 0, margin: 0 }}>
      {takes.has('model') && <Field label="Model" hint="optional"><input maxLength={200} placeholder="the CLI's default" {...form.bind('model')} /></Field>}
      {takes.has('max_turns') && <Field label="Max turns" hint="optional"><input inputMode="numeric" {...form.bind('max_turns')} /></Field>}
      {takes.has('url') && <Field label="URL"><input type="url" maxLength={2000} placeholder="https://agents.example.com/run" {...form.bind('url')} /></Field>}
      {takes.has('timeout_seconds') && <Field label="Timeout (seconds)" hint="optional"><input inputMode="numeric" {...form.bind('timeout_seconds')} /></Field>}
      {takes.has('secret_env') && <Field label="Secret variable" hint="runner environment variable with the bearer secret"><input maxLength={200} className="mono" {...form.bind('secret_env')} /></Field>}
      {takes.has('command') && <Field label="Command" hint="used only by runners started with --allow-agent-commands"><input maxLength={1000} className="mono" {...form.bind('command')} /></Field>}
      {takes.has('args') && <Field label="Extra arguments" hint="one per line"><textarea rows={2} className="mono" {...form.bind('args')} /></Field>}
      {takes.has('env') && <Field label="Environment passed through" hint="variables, comma-separated"><input className="mono" placeholder="GITHUB_TOKEN, NPM_TOKEN" {...form.bind('env')} /></Field>}
    </fieldset>
  )
}
