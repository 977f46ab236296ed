// Help texts, generated from the command specs so they cannot drift from what is parsed.
import type { OptionSpec } from './args.ts'
import type { CommandSpec, GroupSpec } from './cli.ts'
import { ENTRIES, GLOBAL_OPTIONS, isGroup, optionsOf } from './registry.ts'

function optionLines(options: readonly OptionSpec[]): string[] {
  const left = (o: OptionSpec) => `${o.short ? `-${o.short}, ` : '    '}--${o.name}${o.value ? ` ${o.value}` : ''}`
  const width = Math.max(...options.map((o) => left(o).length))
  return options.map((o) => `  ${left(o).padEnd(width)}  ${o.help}`)
}

function summaries(items: readonly { name: string; summary: string }[]): string[] {
  const width = Math.max(...items.map((i) => i.name.length))
  return items.map((i) => `  ${i.name.padEnd(width)}  ${i.summary}`)
}

/** The commands that are not the API client: processes, operators, the shell. */
export const PROCESS_COMMANDS: readonly { name: string; summary: string }[] = [
  { name: 'serve', summary: 'start the API server (npm start; "shopfloor serve --help" for its settings)' },
  { name: 'scheduler', summary: 'run the scheduler on its own (with SCHEDULER=off on the API)' },
  { name: 'runner', summary: "claim and execute agents' runs" },
  { name: 'mcp', summary: 'MCP server on stdio for an agent (SHOPFLOOR_API_URL, SHOPFLOOR_API_KEY)' },
  { name: 'admin', summary: 'operator commands on the database: admin users|members ... (DATABASE_URL / DATA_DIR)' },
  { name: 'completion', summary: 'shell completion: eval "$(shopfloor completion bash)" (or zsh)' },
  { name: 'version', summary: 'print the version (also --version, -V)' },
  { name: 'help', summary: 'this help; "shopfloor help <command>" for one command' },
]

export function mainHelp(): string {
  return [
    'Usage: shopfloor <command> [options]',
    '',
    'Shopfloor: the API server, its scheduler and runners, and the command-line client of its API.',
    '',
    'Processes and tools:',
    ...summaries(PROCESS_COMMANDS),
    '',
    'Client commands:',
    ...summaries(ENTRIES),
    '',
    'Global options:',
    ...optionLines(GLOBAL_OPTIONS),
    '',
    'Credentials: the session of "shopfloor login", or an API key in SHOPFLOOR_API_KEY.',
    'Exit codes: 0 ok, 2 usage mistake, 3 not authenticated or not allowed, 4 not found, 5 conflict or invalid input, 1 other (network, server).',
    'Run "shopfloor <command> --help" for the options of a command.',
    '',
  ].join('\n')
}

export function groupHelp(group: GroupSpec): string {
  return [
    `Usage: shopfloor ${group.name} <command> [options]`,
    '',
    `${group.summary}.`,
    '',
    'Commands:',
    ...summaries(group.commands),
    '',
    `Run "shopfloor ${group.name} <command> --help" for the options of a command.`,
    '',
  ].join('\n')
}

export function commandHelp(command: CommandSpec, path: string): string {
  const options = optionsOf(command)
  const synopsis = [`shopfloor ${path}`, ...(command.args ?? []), options.length ? '[options]' : ''].filter(Boolean)
  return [
    `Usage: ${synopsis.join(' ')}`,
    '',
    `${command.summary}.`,
    ...(command.notes ? ['', command.notes] : []),
    ...(command.confirm ? ['', 'Asks before it acts on a terminal; elsewhere it needs --yes.'] : []),
    ...(options.length ? ['', 'Options:', ...optionLines(options)] : []),
    '',
    'Global options:',
    ...optionLines(GLOBAL_OPTIONS),
    '',
  ].join('\n')
}

/** Help for `shopfloor help [group [command]]`; undefined when nothing has that name. */
export function helpFor(words: string[]): string | undefined {
  const [name, sub] = words
  if (!name) return mainHelp()
  const entry = ENTRIES.find((e) => e.name === name)
  if (!entry) return undefined
  if (!isGroup(entry)) return commandHelp(entry, entry.name)
  if (!sub) return groupHelp(entry)
  const command = entry.commands.find((c) => c.name === sub)
  return command && commandHelp(command, `${entry.name} ${command.name}`)
}
