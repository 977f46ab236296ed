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
import { findEntry, GLOBAL_OPTIONS, isGroup } from './client/registry.ts'

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
        return asked ? EXIT.ok : EXIT.failure
      }
      const found = entry.commands.find((c) => c.name === sub)
      if (!found) throw new UsageError(`Unknown command "${name} ${sub}". Run "shopfloor ${name} --help" for the list`)
      command = found
      args = subRest
    } else {
      command = entry
    }
    const path = isGroup(entry) ? `${entry.name} ${command.name}` : entry.name
    const parsed = parseArgs(args, [...GLOBAL_OPTIONS, ...(command.options ?? [])])
    if (parsed.options.help) {
      io.out(commandHelp(command, path))
      return EXIT.ok
    }
    const bound = bindArgs(command, path, parsed.positionals)
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

