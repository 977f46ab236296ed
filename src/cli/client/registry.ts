// Every client command, in the order `shopfloor help` lists them, and the options that every
// command accepts.
import type { OptionSpec } from './args.ts'
import type { CommandSpec, GroupSpec } from './cli.ts'
import { keys, login, logout, whoami } from './commands/account.ts'
import { agents } from './commands/agents.ts'
import { approvals } from './commands/approvals.ts'
import { companies } from './commands/companies.ts'
import { documents } from './commands/documents.ts'
import { events } from './commands/events.ts'
import { goals } from './commands/goals.ts'
import { invitations, members } from './commands/people.ts'
import { activity, costs, dashboard, inbox } from './commands/insights.ts'
import { projects } from './commands/projects.ts'
import { routines } from './commands/routines.ts'
import { runners } from './commands/runners.ts'
import { runs } from './commands/runs.ts'
import { skills } from './commands/skills.ts'
import { tasks } from './commands/tasks.ts'
import { webhooks } from './commands/webhooks.ts'

export type Entry = CommandSpec | GroupSpec

export const ENTRIES: readonly Entry[] = [
  login,
  logout,
  whoami,
  companies,
  agents,
  tasks,
  goals,
  projects,
  routines,
  documents,
  skills,
  runs,
  runners,
  approvals,
  activity,
  dashboard,
  inbox,
  costs,
  members,
  invitations,
  webhooks,
  keys,
  events,
]

export const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  { name: 'url', value: 'URL', help: 'server address (else SHOPFLOOR_URL, the config file, http://127.0.0.1:8000)' },
  { name: 'company', short: 'c', value: 'COMPANY', help: 'company id, name or prefix (else SHOPFLOOR_COMPANY, `companies use`)' },
  { name: 'json', help: 'machine-readable JSON output' },
  { name: 'help', short: 'h', help: 'show help for the command' },
]

/** Taken by every command that destroys something (CommandSpec.confirm). */
export const YES_OPTION: OptionSpec = { name: 'yes', short: 'y', help: 'do it without asking' }

/** The options a command parses: its own, --yes when it asks first. */
export function optionsOf(command: CommandSpec): OptionSpec[] {
  return [...(command.options ?? []), ...(command.confirm ? [YES_OPTION] : [])]
}

export function isGroup(entry: Entry): entry is GroupSpec {
  return 'commands' in entry
}

export function findEntry(name: string): Entry | undefined {
  return ENTRIES.find((e) => e.name === name)
}
