// Agents: the roster, hiring, the life-cycle actions, waking, and the org chart.
import type { AdapterConfig, Agent, OrgNode } from '../../../client/index.ts'
import type { OptionSpec, OptionValues } from '../args.ts'
import { type CommandSpec, type GroupSpec, cents, flag, integer, list, nullable, onOff, text } from '../cli.ts'
import { UsageError } from '../errors.ts'
import { budget, details, money, nextFireText, table, time, tree } from '../format.ts'

function describe(agent: Agent, manager: string | undefined): string {
  return details([
    ['Name', agent.name],
    ['Id', agent.id],
    ['Status', agent.status],
    ['Title', agent.title],
    ['Role', agent.role],
    ['Adapter', agent.adapter],
    ['Adapter settings', Object.keys(agent.adapter_config ?? {}).length ? JSON.stringify(agent.adapter_config) : null],
    ['Reports to', manager ?? agent.reports_to_id],
    ['Budget', budget(agent.monthly_budget_cents)],
    ['Spend this month', money(agent.spend_mtd_cents ?? 0)],
    ['Cap per run', agent.max_run_cost_cents ? money(agent.max_run_cost_cents) : 'none'],
    ['Runs per hour', agent.max_runs_per_hour ? `at most ${agent.max_runs_per_hour}` : 'no limit'],
    ['Pause on repeat', agent.pause_on_repeat ? 'on' : 'off'],
    ['Skip idle heartbeats', agent.heartbeat_skip_idle ? 'on' : 'off'],
    ['Open tasks', agent.open_tasks ?? 0],
    ['Heartbeat cron', agent.heartbeat_cron && `${agent.heartbeat_cron} (next: ${nextFireText(agent.heartbeat_cron, true)})`],
    ['Capabilities', agent.capabilities?.join(', ')],
    ['Last activity', time(agent.last_activity)],
    ['Created', time(agent.created_at)],
    ['Instructions', agent.instructions],
  ])
}

/** Spend and runaway settings (API-DECISIONS.md "Spend control"), on hire and update. */
const SPEND_OPTIONS: OptionSpec[] = [
  { name: 'max-run-cost', value: 'CENTS', help: "stop a run when its own cost reaches this (0 = no cap)" },
  { name: 'max-runs-per-hour', value: 'N', help: 'pause the agent when it starts this many runs in an hour (0 = off)' },
  { name: 'pause-on-repeat', value: 'on|off', help: 'pause after 3 finished runs on one task with the same summary' },
  { name: 'skip-idle-heartbeats', value: 'on|off', help: 'scheduled heartbeats skip the agent when it has nothing to do' },
]

function spendSettings(options: OptionValues) {
  return {
    max_run_cost_cents: cents(options, 'max-run-cost'),
    max_runs_per_hour: integer(options, 'max-runs-per-hour'),
    pause_on_repeat: onOff(options, 'pause-on-repeat'),
    heartbeat_skip_idle: onOff(options, 'skip-idle-heartbeats'),
  }
}

/** Options that set `adapter_config`: the whole object as JSON, or one key each. */
const ADAPTER_CONFIG_OPTIONS: OptionSpec[] = [
  { name: 'adapter-config', value: 'JSON', help: 'adapter settings as a JSON object (replaces them; {} clears)' },
  { name: 'model', value: 'MODEL', help: 'adapter setting: the model the CLI uses' },
  { name: 'max-turns', value: 'N', help: 'adapter setting: turn limit (Claude Code, Gemini CLI)' },
  { name: 'pass-env', value: 'NAME', help: "adapter setting: a runner variable passed to the agent (repeatable)", repeat: true },
  { name: 'command', value: 'COMMAND', help: 'adapter setting: executable to run (runners with --allow-agent-commands)' },
  { name: 'agent-arg', value: 'ARG', help: 'adapter setting: extra argument (repeatable; --agent-arg=--flag)', repeat: true },
  // Not --url, which every command takes as the server's address.
  { name: 'endpoint', value: 'URL', help: 'adapter setting (http): the endpoint (adapter_config.url)' },
  { name: 'timeout-seconds', value: 'N', help: 'adapter setting (http): how long an answer may take' },
  { name: 'secret-env', value: 'NAME', help: "adapter setting (http): runner variable holding the bearer secret" },
]

/**
 * The adapter settings the options ask for, on top of `current` (an update keeps the keys it
 * does not name); undefined when no option names any.
 */
function adapterConfig(options: OptionValues, current: AdapterConfig = {}): AdapterConfig | undefined {
  let config: AdapterConfig | undefined
  const json = text(options, 'adapter-config')
  if (json !== undefined) {
    try {
      config = JSON.parse(json)
    } catch {
      throw new UsageError('--adapter-config must be a JSON object')
    }
    if (!config || typeof config !== 'object' || Array.isArray(config)) throw new UsageError('--adapter-config must be a JSON object')
  }
  const keys: AdapterConfig = {
    model: text(options, 'model'),
    max_turns: integer(options, 'max-turns'),
    env: list(options, 'pass-env'),
    command: text(options, 'command'),
    args: options['agent-arg'] === undefined ? undefined : (options['agent-arg'] as string[]),
    url: text(options, 'endpoint'),
    timeout_seconds: integer(options, 'timeout-seconds'),
    secret_env: text(options, 'secret-env'),
  }
  const named = Object.fromEntries(Object.entries(keys).filter(([, v]) => v !== undefined))
  if (config === undefined && Object.keys(named).length === 0) return undefined
  return { ...(config ?? current), ...named }
}

/** pause, resume and terminate: one call on an agent named by id or name. */
function lifecycle(name: 'pause' | 'resume' | 'terminate', summary: string, past: string): CommandSpec {
  return {
    name,
    summary,
    args: ['<agent>'],
    ...(name === 'terminate' ? { confirm: (a: Record<string, string | undefined>) => `Terminate agent ${a.agent} for good (its runs are cancelled)?` } : {}),
    async run(cli, { args }) {
      const agent = await cli.findAgent(args.agent!)
      const updated = await cli.client.agents[name](await cli.companyId(), agent.id)
      await cli.print(updated, () => `${past} ${updated.name} (now ${updated.status})`)
    },
  }
}

const UPDATE_OPTIONS: OptionSpec[] = [
  { name: 'name', value: 'NAME', help: 'new name' },
  { name: 'title', value: 'TITLE', help: 'job title (none clears)' },
  { name: 'role', value: 'ROLE', help: 'role (none clears)' },
  { name: 'adapter', value: 'ADAPTER', help: 'how runners execute it' },
  { name: 'reports-to', value: 'AGENT', help: 'manager, by id or name (none clears)' },
  { name: 'budget', value: 'CENTS', help: 'monthly budget in cents (0 = no limit)' },
  { name: 'instructions', value: 'TEXT', help: "part of the agent's system prompt (none clears)" },
  { name: 'heartbeat-cron', value: 'CRON', help: 'wake the agent on this schedule (none clears)' },
  ...SPEND_OPTIONS,
  ...ADAPTER_CONFIG_OPTIONS,
]

function orgTree(nodes: OrgNode[]): { label: string; children: ReturnType<typeof orgTree> }[] {
  return nodes.map((node) => ({
    label: `${node.agent.name}${node.agent.title ? `, ${node.agent.title}` : ''} [${node.agent.status}]`,
    children: orgTree(node.reports),
  }))
}

export const agents: GroupSpec = {
  name: 'agents',
  summary: 'Agents: list, hire, show, pause, resume, terminate, wake, org chart',
  commands: [
    {
      name: 'list',
      summary: 'List agents',
      options: [{ name: 'all', help: 'include terminated agents' }],
      async run(cli, { options }) {
        const rows = await cli.client.agents.list(await cli.companyId(), { include_terminated: flag(options, 'all') || undefined })
        await cli.print(rows, () =>
          table(rows, [
            { header: 'name', value: (a) => a.name },
            { header: 'title', value: (a) => a.title },
            { header: 'status', value: (a) => a.status },
            { header: 'open', value: (a) => a.open_tasks ?? 0, right: true },
            { header: 'spend', value: (a) => money(a.spend_mtd_cents ?? 0), right: true },
            { header: 'budget', value: (a) => budget(a.monthly_budget_cents), right: true },
          ]),
        )
      },
    },
    {
      name: 'hire',
      summary: 'Hire an agent',
      args: ['<name...>'],
      options: [
        { name: 'title', value: 'TITLE', help: 'job title' },
        { name: 'role', value: 'ROLE', help: 'ceo, cto, engineer, designer, qa, ... (default engineer)' },
        { name: 'adapter', value: 'ADAPTER', help: 'how runners execute it (default agent_cli_1)' },
        { name: 'reports-to', value: 'AGENT', help: 'manager, by id or name' },
        { name: 'budget', value: 'CENTS', help: 'monthly budget in cents (0 = no limit)' },
        { name: 'instructions', value: 'TEXT', help: "part of the agent's system prompt" },
        { name: 'heartbeat-cron', value: 'CRON', help: 'wake the agent on this schedule' },
        { name: 'capability', value: 'TEXT', help: 'a capability (repeatable, or comma-separated)', repeat: true },
        { name: 'request-approval', help: 'open a hire approval instead of hiring at once' },
        ...SPEND_OPTIONS,
        ...ADAPTER_CONFIG_OPTIONS,
      ],
      async run(cli, { args, options }) {
        const manager = text(options, 'reports-to')
        const agent = await cli.client.agents.hire(await cli.companyId(), {
          name: args.name!,
          title: text(options, 'title'),
          role: text(options, 'role'),
          adapter: text(options, 'adapter'),
          reports_to_id: manager ? (await cli.findAgent(manager)).id : undefined,
          heartbeat_cron: text(options, 'heartbeat-cron'),
          instructions: text(options, 'instructions'),
          capabilities: list(options, 'capability'),
          monthly_budget_cents: cents(options, 'budget'),
          request_approval: flag(options, 'request-approval') || undefined,
          adapter_config: adapterConfig(options),
          ...spendSettings(options),
        })
        cli.warnUnreadableCron(agent.heartbeat_cron, 'its heartbeat will not wake the agent')
        await cli.print(agent, () =>
          agent.status === 'pending_approval'
            ? `Proposed ${agent.name} (${agent.id}); the hire waits for approval`
            : `Hired ${agent.name} (${agent.id})`,
        )
      },
    },
    {
      name: 'show',
      summary: 'Show an agent with its spend and open tasks',
      args: ['<agent>'],
      async run(cli, { args }) {
        const agent = await cli.findAgent(args.agent!)
        const full = await cli.client.agents.get(await cli.companyId(), agent.id)
        await cli.print(full, async () => {
          const manager = full.reports_to_id ? (await cli.agentNames()).get(full.reports_to_id) : undefined
          return describe(full, manager)
        })
      },
    },
    {
      name: 'update',
      summary: "Change an agent's fields and adapter settings",
      args: ['<agent>'],
      options: UPDATE_OPTIONS,
      async run(cli, { args, options }) {
        // Checked before any request: an update that names no field would change nothing.
        if (!UPDATE_OPTIONS.some((o) => options[o.name] !== undefined)) throw new UsageError('Nothing to change: give at least one option')
        const companyId = await cli.companyId()
        const agent = await cli.findAgent(args.agent!)
        const manager = nullable(options, 'reports-to')
        const body = {
          name: text(options, 'name'),
          title: nullable(options, 'title'),
          role: nullable(options, 'role'),
          adapter: text(options, 'adapter'),
          reports_to_id: manager ? (await cli.findAgent(manager)).id : manager,
          heartbeat_cron: nullable(options, 'heartbeat-cron'),
          instructions: nullable(options, 'instructions'),
          monthly_budget_cents: cents(options, 'budget'),
          adapter_config: adapterConfig(options, agent.adapter_config),
          ...spendSettings(options),
        }
        const updated = await cli.client.agents.update(companyId, agent.id, body)
        if (options['heartbeat-cron'] !== undefined) cli.warnUnreadableCron(updated.heartbeat_cron, 'its heartbeat will not wake the agent')
        await cli.print(updated, () => `Updated ${updated.name}`)
      },
    },
    lifecycle('pause', 'Pause an agent (its running run goes on, queued runs wait)', 'Paused'),
    lifecycle('resume', 'Resume a paused agent', 'Resumed'),
    lifecycle('terminate', 'Terminate an agent for good (cancels its runs)', 'Terminated'),
    {
      name: 'wake',
      summary: 'Queue a run for an agent now',
      args: ['<agent>'],
      notes: 'AGENT is a name, an id or the start of an id.',
      options: [
        { name: 'task', value: 'TASK', help: 'work on this task (key such as ENG-12, or id)' },
        { name: 'reason', value: 'TEXT', help: 'why, shown at the start of the transcript' },
      ],
      async run(cli, { args, options }) {
        const companyId = await cli.companyId()
        const agent = await cli.findAgent(args.agent!)
        const taskRef = nullable(options, 'task')
        const task = taskRef ? await cli.client.tasks.get(companyId, taskRef) : null
        const run = await cli.client.agents.wake(companyId, agent.id, { task_id: task?.id, reason: text(options, 'reason') })
        await cli.print(run, () => `Queued run ${run.id} for ${agent.name}${task ? ` on ${task.key}` : ''}`)
      },
    },
    {
      name: 'org',
      summary: 'Show the org chart as a tree',
      async run(cli) {
        const nodes = await cli.client.agents.org(await cli.companyId())
        await cli.print(nodes, () => tree(orgTree(nodes)))
      },
    },
  ],
}
