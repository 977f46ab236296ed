// The command-line client of the API: `shopfloor <command> [subcommand] [arguments] [options]`.
// Finds the command, parses its options, runs it, and turns any failure into `CODE: message`
// on stderr and the exit code (see client/errors.ts).
import { ApiError } from '../client/index.ts'
import { parseArgs, splitCommand } from './client/args.ts'
import { Cli, type CommandSpec, type Io } from './client/cli.ts'
import { ConfigStore, configPath } from './client/config.ts'
import { describeError, EXIT, exitCodeFor, UsageError } from './client/errors.ts'
import { visible } from './client/format.ts'
import { commandHelp, groupHelp, helpFor } from './client/help.ts'
import { ask } from './client/prompt.ts'
import { findEntry, GLOBAL_OPTIONS, isGroup, optionsOf } from './client/registry.ts'

const STDIO: Io = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
}

/** Exit code of the command. */
export async function runClient(argv: string[], env: NodeJS.ProcessEnv = process.env, io: Io = STDIO): Promise<number> {
  let cli: Cli | undefined
  try {
    const { words: [name], rest } = splitCommand(argv, GLOBAL_OPTIONS, 1)
    if (name === undefined || name === 'help') {
      parseArgs(rest, GLOBAL_OPTIONS) // an unknown option is a usage mistake, not a request for help
      const words = splitCommand(rest, GLOBAL_OPTIONS, 2).words
      const text = helpFor(words)
      if (!text) throw new UsageError(`No help for "${words.join(' ')}"`)
      io.out(text)
      return EXIT.ok
    }
    const entry = findEntry(name)
    if (!entry) throw new UsageError(`Unknown command "${name}". Run "shopfloor help" for the list`)
    let command: CommandSpec
    let args = rest
    if (isGroup(entry)) {
      const { words: [sub], rest: subRest } = splitCommand(rest, GLOBAL_OPTIONS, 1)
      if (sub === undefined) {
        const asked = rest.includes('--help') || rest.includes('-h')
        ;(asked ? io.out : io.err)(groupHelp(entry))
        return asked ? EXIT.ok : EXIT.usage
      }
      const found = entry.commands.find((c) => c.name === sub)
      if (!found) throw new UsageError(`Unknown command "${name} ${sub}". Run "shopfloor ${name} --help" for the list`)
      command = found
      args = subRest
    } else {
      command = entry
    }
    const path = isGroup(entry) ? `${entry.name} ${command.name}` : entry.name
    const parsed = parseArgs(args, [...GLOBAL_OPTIONS, ...optionsOf(command)])
    if (parsed.options.help) {
      io.out(commandHelp(command, path))
      return EXIT.ok
    }
    const bound = bindArgs(command, path, parsed.positionals)
    if (command.confirm && parsed.options.yes !== true && !(await confirmed(command.confirm(bound), path))) {
      io.err('Nothing done.')
      return EXIT.failure
    }
    cli = new Cli({
      env,
      config: new ConfigStore(configPath(env)),
      url: parsed.options.url as string | undefined,
      company: parsed.options.company as string | undefined,
      json: parsed.options.json === true,
      io,
    })
    await command.run(cli, { args: bound, options: parsed.options })
    return EXIT.ok
  } catch (error) {
    // Error messages quote what the server or the user gave (a name, a ref): made visible too.
    io.err(visible(describeError(error)))
    if (error instanceof UsageError) io.err('Run "shopfloor help" or "shopfloor <command> --help" for usage.')
    if (error instanceof ApiError && error.status === 401 && cli?.via !== 'key') {
      io.err('Sign in with "shopfloor login", or set SHOPFLOOR_API_KEY.')
    }
    return exitCodeFor(error)
  }
}

/**
 * Asks on a terminal; without one (a script, a pipe) nobody can answer, so the command needs
 * --yes and says so as a usage error.
 */
async function confirmed(question: string, path: string): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    throw new UsageError(`${question.replace(/\?$/, '')}: "shopfloor ${path}" needs --yes when it cannot ask (standard input is not a terminal)`)
  }
  return /^(y|yes)$/i.test(await ask(`${question} [y/N] `))
}

/** Positional arguments by name: `<x>` required, `[x]` optional, `x...` takes the rest. */
function bindArgs(command: CommandSpec, path: string, positionals: string[]): Record<string, string | undefined> {
  const bound: Record<string, string | undefined> = {}
  const specs = command.args ?? []
  let i = 0
  for (const spec of specs) {
    const name = spec.replace(/[<>[\]]|\.\.\./g, '')
    const value = spec.includes('...') ? positionals.slice(i).join(' ') || undefined : positionals[i]
    if (value === undefined && spec.startsWith('<')) throw new UsageError(`Missing ${name}: shopfloor ${path} ${specs.join(' ')}`)
    bound[name] = value
    i = spec.includes('...') ? positionals.length : i + 1
  }
  if (i < positionals.length) throw new UsageError(`Unexpected argument "${positionals[i]}" for shopfloor ${path}`)
  return bound
}

