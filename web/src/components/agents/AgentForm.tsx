// The fields of an agent, for hiring and for editing: role (free text with suggestions), the
// adapter picked by product name, that adapter's own settings (adapter_config), and the spend
// limits (API-DECISIONS.md "Agent settings beyond the spec").
import type { Agent, AgentFields } from '#src/client/types.ts'
import { centsToInput, parseCents } from '../../lib/format.ts'
import { nextFire } from '#src/contract/schedule.ts'
import { HIRE_DEFAULTS, MAX_COUNT, parseCount } from '../../lib/spend.ts'
import { useForm } from '../../lib/useForm.ts'
import { ArrowDown, ArrowUp, Plus, X } from 'lucide-react'
import { ADAPTER_NAMES, adapterLabel, configFromText, MAX_FALLBACKS, settingsOf, settingsText } from '../../lib/adapters.ts'
import { useCompanyId } from '../../lib/company.ts'
import { useRunners } from '../../lib/queries.ts'
import { capableRunners, runnerList, waitingReason } from '../../lib/waiting.ts'
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
    maxRunCost: centsToInput(agent?.max_run_cost_cents),
    maxRunsPerHour: String(agent ? agent.max_runs_per_hour : HIRE_DEFAULTS.max_runs_per_hour),
    pauseOnRepeat: agent ? agent.pause_on_repeat : HIRE_DEFAULTS.pause_on_repeat,
    skipIdle: agent ? agent.heartbeat_skip_idle : HIRE_DEFAULTS.heartbeat_skip_idle,
    ...settingsText(agent?.adapter_config),
  })
  /** The request body, or an Error naming the bad field. */
  function fields(): AgentFields & { name: string } {
    const v = form.values
    const budget = parseCents(v.budget)
    if (budget === null) throw new Error('Monthly budget: enter an amount such as 25 or 12.50.')
    const maxRunCost = parseCents(v.maxRunCost)
    if (maxRunCost === null || maxRunCost > MAX_COUNT) throw new Error('Cap per run: enter an amount such as 2 or 0.50, or leave it blank for no cap.')
    const maxRunsPerHour = parseCount(v.maxRunsPerHour)
    if (maxRunsPerHour === null) throw new Error('Runs per hour: enter a whole number such as 20, or 0 to turn the limit off.')
    // The API stores any text (SPEC.md); a schedule the scheduler cannot read would never wake the agent.
    const cron = v.cron.trim() ? nextFire(v.cron) : null
    if (cron && 'error' in cron) throw new Error(`Heartbeat cron: not a cron expression the scheduler can read (${cron.error}).`)
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
      max_run_cost_cents: maxRunCost,
      max_runs_per_hour: maxRunsPerHour,
      pause_on_repeat: v.pauseOnRepeat,
      heartbeat_skip_idle: v.skipIdle,
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
      <RunnerFit adapter={v.adapter} />
      <AdapterSettings form={form} />
      <SpendLimits form={form} />
      <Field label="Instructions"><textarea {...form.bind('instructions')} /></Field>
      <datalist id="agent-roles">{ROLES.map((r) => <option key={r} value={r} />)}</datalist>
    </>
  )
}

/** Whether a connected runner can run the chosen product, said before the hire rather than after a run waits. */
function RunnerFit({ adapter }: { adapter: string }) {
  const companyId = useCompanyId()
  const runners = useRunners(companyId)
  if (!runners.data || adapter === 'simulated') return null
  const able = capableRunners(runners.data, adapter)
  if (able.length > 0) return <p className="small muted" role="note" aria-label="Runners">{runnerList(able)} can run {adapterLabel(adapter)}.</p>
  return (
    <p className="small warn-text" role="note" aria-label="Runners">
      {waitingReason({}, adapter, runners.data).text.replace(': connect one to run it.', `: ${adapterLabel(adapter)} runs wait until one that has it connects.`)}
    </p>
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
      {takes.has('secret_env') && <Field label="Secret variable" hint="the runner's variable holding the bearer secret; the runner must allow it"><input maxLength={200} className="mono" {...form.bind('secret_env')} /></Field>}
      {takes.has('command') && <Field label="Command" hint="used only by runners that allow agents their own commands"><input maxLength={1000} className="mono" {...form.bind('command')} /></Field>}
      {takes.has('args') && <Field label="Extra arguments" hint="one per line"><textarea rows={2} className="mono" {...form.bind('args')} /></Field>}
      {takes.has('env') && <Field label="Environment passed through" hint="comma-separated; passed only by runners that allow them"><input className="mono" placeholder="GITHUB_TOKEN, NPM_TOKEN" {...form.bind('env')} /></Field>}
      {takes.has('fallback') && <FallbackModels form={form} />}
      {(takes.has('secret_env') || takes.has('command') || takes.has('env')) && (
        <details className="small muted span-all">
          <summary>Details: what the runner must allow</summary>
          <p>A secret variable or passed-through names: start the runner with <code>--allow-agent-env NAME</code>; an agent's own command: <code>--allow-agent-commands</code>.</p>
        </details>
      )}
    </fieldset>
  )
}

/**
 * adapter_config.fallback: models tried in order, on the agent's own CLI, when its model is
 * overloaded or over a provider's limit. Each can be moved up or down and removed; blanks are
 * left out when saved.
 */
function FallbackModels({ form }: { form: ReturnType<typeof useAgentForm>['form'] }) {
  const models = form.values.fallback
  const set = (next: string[]) => form.setValues((v) => ({ ...v, fallback: next }))
  const move = (from: number, to: number) => {
    const next = [...models]
    const [moved] = next.splice(from, 1)
    next.splice(to, 0, moved!)
    set(next)
  }
  return (
    <fieldset className="fallbacks span-all" aria-label="Fallback models">
      <legend>Fallback models <span className="hint">tried in order on {adapterLabel(form.values.adapter)} when the model is overloaded or over its limit</span></legend>
      {models.length > 0 && (
        <ol>
          {models.map((model, i) => (
            <li key={i} className="row">
              <input aria-label={`Fallback model ${i + 1}`} maxLength={200} value={model} placeholder="model name"
                onChange={(e) => set(models.map((m, j) => (j === i ? e.target.value : m)))} />
              <button type="button" className="icon" aria-label={`Move fallback ${i + 1} up`} title="Move up" disabled={i === 0} onClick={() => move(i, i - 1)}><ArrowUp size={16} aria-hidden /></button>
              <button type="button" className="icon" aria-label={`Move fallback ${i + 1} down`} title="Move down" disabled={i === models.length - 1} onClick={() => move(i, i + 1)}><ArrowDown size={16} aria-hidden /></button>
              <button type="button" className="icon" aria-label={`Remove fallback ${i + 1}`} title="Remove" onClick={() => set(models.filter((_, j) => j !== i))}><X size={16} aria-hidden /></button>
            </li>
          ))}
        </ol>
      )}
      {models.length < MAX_FALLBACKS && (
        <button type="button" className="small" onClick={() => set([...models, ''])}><Plus size={14} aria-hidden /> Add a fallback model</button>
      )}
    </fieldset>
  )
}

/** The limits on what an agent spends and how often it runs, each with what it does. */
function SpendLimits({ form }: { form: ReturnType<typeof useAgentForm>['form'] }) {
  return (
    <fieldset className="spend-limits" aria-label="Spend limits">
      <legend>Spend limits</legend>
      <div className="form-grid">
        <Field label="Cap per run" hint="stops a run once its own cost reaches this; blank = no cap">
          <input inputMode="decimal" placeholder="no cap" {...form.bind('maxRunCost')} />
        </Field>
        <Field label="Runs per hour" hint="more in 60 minutes pauses the agent for approval; 0 = off">
          <input inputMode="numeric" {...form.bind('maxRunsPerHour')} />
        </Field>
      </div>
      <label className="field check">
        <input type="checkbox" {...form.check('pauseOnRepeat')} />
        <span>Pause on repeats <span className="hint">(pause for approval after 3 runs on one task end with the same summary)</span></span>
      </label>
      <label className="field check">
        <input type="checkbox" {...form.check('skipIdle')} />
        <span>Skip idle heartbeats <span className="hint">(a scheduled heartbeat starts no run while the agent has nothing to do)</span></span>
      </label>
    </fieldset>
  )
}
