// Help texts, generated from the command specs so they cannot drift from what is parsed.
import type { OptionSpec } from './args.ts'
import type { CommandSpec, GroupSpec } from './cli.ts'
import { ENTRIES, GLOBAL_OPTIONS, isGroup } from './registry.ts'

function optionLines(options: readonly OptionSpec[]): string[] {
  const left = (o: OptionSpec) => `${o.short ? `-${o.short}, ` : '    '}--${o.name}${o.value ? ` ${o.value}` : ''}`
  const width = Math.max(...options.map((o) => left(o).length))
  return options.map((o) => `  ${left(o).padEnd(width)}  ${o.help}`)
}

function summaries(items: readonly { name: string; summary: string }[]): string[] {
  const width = Math.max(...items.map((i) => i.name.length))
  return items.map((i) => `  ${i.name.padEnd(width)}  ${i.summary}`)
}

export function mainHelp(): string {
  return [
    'Usage: shopfloor <command> [options]',
    '',
    'The command-line client of the Shopfloor API.',
    '',
    'Commands:',
    ...summaries(ENTRIES),
    '',
    'Global options:',
    ...optionLines(GLOBAL_OPTIONS),
    '',
    'Credentials: the session of "shopfloor login", or an API key in SHOPFLOOR_API_KEY.',
    'Exit codes: 0 ok, 3 not authenticated or not allowed, 4 not found, 5 conflict or invalid input, 1 other.',
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
  const synopsis = [`shopfloor ${path}`, ...(command.args ?? []), command.options?.length ? '[options]' : ''].filter(Boolean)
  return [
    `Usage: ${synopsis.join(' ')}`,
    '',
    `${command.summary}.`,
    ...(command.notes ? ['', command.notes] : []),
    ...(command.options?.length ? ['', 'Options:', ...optionLines(command.options)] : []),
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
