// Projects: list, create, show, update (a project is archived, never deleted), with the settings
// of verified work (docs/verified-work.md): checks, require_checks, merge_on_approve, reviewer.
import type { Project, ProjectStatus } from '../../../client/index.ts'
import type { CheckInput } from '../../../contract/work.ts'
import type { OptionSpec, OptionValues } from '../args.ts'
import { type Cli, type GroupSpec, cents, longText, nullable, onOff, text } from '../cli.ts'
import { UsageError } from '../errors.ts'
import { budget, details, table, time } from '../format.ts'

function describe(project: Project, agents: Map<string, string>): string {
  return details([
    ['Name', project.name],
    ['Id', project.id],
    ['Status', project.status],
    ['Repository', project.repository],
    ['Default branch', project.default_branch],
    ['Checks', project.checks.length ? project.checks.map((c) => `${c.name}: ${c.command} (${c.timeout_seconds} s)`).join('; ') : null],
    ['Require checks', project.require_checks ? 'yes' : 'no'],
    ['Merge on approve', project.merge_on_approve ? 'yes' : 'no'],
    ['Reviewer', project.reviewer_agent_id ? (agents.get(project.reviewer_agent_id) ?? project.reviewer_agent_id) : null],
    ['Budget', budget(project.monthly_budget_cents)],
    ['Created', time(project.created_at)],
    ['Description', project.description],
  ])
}

/** The options of verified work, on create and update alike. */
const WORK_OPTIONS: OptionSpec[] = [
  { name: 'default-branch', value: 'BRANCH', help: 'where approved work is merged (default main)' },
  { name: 'check', value: 'NAME=COMMAND', help: 'a check run after the agent (repeatable, in order; replaces them all; none clears them)', repeat: true },
  { name: 'check-timeout', value: 'NAME=SECONDS', help: "a check's timeout (repeatable; default 600)", repeat: true },
  { name: 'require-checks', value: 'on|off', help: "an agent cannot mark a task done while its last run's checks did not pass" },
  { name: 'merge-on-approve', value: 'on|off', help: 'an approval merges the task branch into the default branch' },
  { name: 'reviewer', value: 'AGENT', help: "the agent that reviews the project's tasks, or none" },
]

/** Every value of a repeatable option, as given. */
function values(options: OptionValues, name: string): string[] | undefined {
  const value = options[name]
  if (value === undefined) return undefined
  return Array.isArray(value) ? value.map(String) : [String(value)]
}

/** `NAME=VALUE`, split at the first `=` (a command may hold more). */
function named(option: string, given: string, what: string): [string, string] {
  const at = given.indexOf('=')
  if (at < 1 || at === given.length - 1) throw new UsageError(`--${option} takes ${what}, got "${given}"`)
  return [given.slice(0, at).trim(), given.slice(at + 1)]
}

/**
 * The checks from --check NAME=COMMAND (in the order given) and --check-timeout NAME=SECONDS;
 * `--check none` is no checks. The server checks names, lengths and ranges (422).
 */
function checksOption(options: OptionValues): CheckInput[] | undefined {
  const given = values(options, 'check')
  const timeouts = values(options, 'check-timeout')
  if (given === undefined) {
    if (timeouts) throw new UsageError('--check-timeout goes with --check: the checks are given whole, each with its command')
    return undefined
  }
  if (given.length === 1 && given[0]!.toLowerCase() === 'none') {
    if (timeouts) throw new UsageError('--check-timeout names a check, and --check none leaves none')
    return []
  }
  const checks: CheckInput[] = given.map((g) => {
    const [name, command] = named('check', g, 'NAME=COMMAND')
    return { name, command }
  })
  for (const t of timeouts ?? []) {
    const [name, seconds] = named('check-timeout', t, 'NAME=SECONDS')
    const check = checks.find((c) => c.name === name)
    if (!check) throw new UsageError(`--check-timeout names ${name}, which no --check gives`)
    if (!/^\d+$/.test(seconds)) throw new UsageError(`--check-timeout ${name} must be a whole number of seconds, got "${seconds}"`)
    check.timeout_seconds = Number(seconds)
  }
  return checks
}

/** The fields of verified work the options give (undefined: not given). */
async function workFields(cli: Cli, options: OptionValues) {
  const reviewer = text(options, 'reviewer')
  return {
    default_branch: text(options, 'default-branch'),
    checks: checksOption(options),
    require_checks: onOff(options, 'require-checks'),
    merge_on_approve: onOff(options, 'merge-on-approve'),
    reviewer_agent_id: reviewer === undefined ? undefined : await cli.agentIdOrNone(reviewer),
  }
}

export const projects: GroupSpec = {
  name: 'projects',
  summary: 'Projects: list, create, show, update',
  commands: [
    {
      name: 'list',
      summary: 'List projects',
      async run(cli) {
        const rows = await cli.client.projects.list(await cli.companyId())
        await cli.print(rows, () =>
          table(rows, [
            { header: 'name', value: (p) => p.name },
            { header: 'status', value: (p) => p.status },
            { header: 'repository', value: (p) => p.repository },
            { header: 'budget', value: (p) => budget(p.monthly_budget_cents), right: true },
          ]),
        )
      },
    },
    {
      name: 'create',
      summary: 'Create a project',
      args: ['<name...>'],
      options: [
        { name: 'description', value: 'TEXT', help: 'description' },
        { name: 'repository', value: 'URL', help: 'git repository; runs for its tasks use a worktree of it' },
        { name: 'budget', value: 'CENTS', help: 'monthly budget in cents (informational)' },
        ...WORK_OPTIONS,
      ],
      async run(cli, { args, options }) {
        const project = await cli.client.projects.create(await cli.companyId(), {
          name: args.name!,
          description: await longText(options, 'description'),
          repository: text(options, 'repository'),
          monthly_budget_cents: cents(options, 'budget'),
          ...(await workFields(cli, options)),
        })
        await cli.print(project, () => `Created project ${project.name} (${project.id})`)
      },
    },
    {
      name: 'show',
      summary: 'Show a project',
      args: ['<project>'],
      notes: 'PROJECT is a project name or id.',
      async run(cli, { args }) {
        const project = await cli.findProject(args.project!)
        await cli.print(project, async () => describe(project, await cli.agentNames()))
      },
    },
    {
      name: 'update',
      summary: 'Change fields of a project (archive it with --status archived)',
      args: ['<project>'],
      notes: 'PROJECT is a project name or id.',
      options: [
        { name: 'name', value: 'NAME', help: 'new name' },
        { name: 'description', value: 'TEXT', help: 'description, or none' },
        { name: 'repository', value: 'URL', help: 'git repository, or none' },
        { name: 'budget', value: 'CENTS', help: 'monthly budget in cents' },
        { name: 'status', value: 'STATUS', help: 'active, paused, completed, archived' },
        ...WORK_OPTIONS,
      ],
      async run(cli, { args, options }) {
        const body = {
          name: text(options, 'name'),
          description: await longText(options, 'description'),
          repository: nullable(options, 'repository'),
          monthly_budget_cents: cents(options, 'budget'),
          status: text(options, 'status') as ProjectStatus | undefined,
          ...(await workFields(cli, options)),
        }
        if (Object.values(body).every((v) => v === undefined)) throw new UsageError('Nothing to change: give at least one option')
        const project = await cli.client.projects.update(await cli.companyId(), (await cli.findProject(args.project!)).id, body)
        await cli.print(project, () => `Updated project ${project.name}`)
      },
    },
  ],
}
