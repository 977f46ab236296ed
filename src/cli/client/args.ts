// Command-line parsing for the client: options are `--name value`, `--name=value` or a bare
// `--flag`; anything after `--` is positional. Every command declares its options, so an
// unknown or incomplete option is reported instead of being silently ignored.
import { UsageError } from './errors.ts'

export interface OptionSpec {
  name: string
  /** Placeholder of the value (`STATUS`); absent for a boolean flag. */
  value?: string
  help: string
  short?: string
  /** May be given several times; the values are collected in order. */
  repeat?: boolean
}

export type OptionValues = Record<string, string | string[] | boolean | undefined>

export interface Parsed {
  positionals: string[]
  options: OptionValues
}

export function parseArgs(argv: readonly string[], specs: readonly OptionSpec[]): Parsed {
  const positionals: string[] = []
  const options: OptionValues = {}
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]
    if (token === '--') {
      positionals.push(...argv.slice(i + 1))
      break
    }
    if (!token.startsWith('-') || token === '-') {
      positionals.push(token)
      continue
    }
    const [flag, inline] = splitInline(token)
    const spec = findOption(specs, flag)
    if (!spec) throw new UsageError(`Unknown option ${flag}`)
    if (!spec.value) {
      if (inline !== undefined) throw new UsageError(`Option --${spec.name} takes no value`)
      options[spec.name] = true
      continue
    }
    const value = inline ?? argv[++i]
    if (value === undefined) throw new UsageError(`Option --${spec.name} needs a value (${spec.value})`)
    if (spec.repeat) options[spec.name] = [...((options[spec.name] as string[] | undefined) ?? []), value]
    else options[spec.name] = value
  }
  return { positionals, options }
}

/**
 * Splits the words that name the command (`tasks list`, at most `count`) from the rest of argv.
 * Options may come before the command name, so options and the values of the value-taking
 * options in `specs` are skipped while looking for the words.
 */
export function splitCommand(argv: readonly string[], specs: readonly OptionSpec[], count: number): { words: string[]; rest: string[] } {
  const taken: number[] = []
  for (let i = 0; i < argv.length && taken.length < count; i++) {
    const token = argv[i]
    if (token === '--') break
    if (!token.startsWith('-') || token === '-') {
      taken.push(i)
      continue
    }
    const [flag, inline] = splitInline(token)
    if (findOption(specs, flag)?.value && inline === undefined) i++
  }
  return { words: taken.map((i) => argv[i]), rest: argv.filter((_, i) => !taken.includes(i)) }
}

function splitInline(token: string): [string, string | undefined] {
  const eq = token.indexOf('=')
  return token.startsWith('--') && eq > 0 ? [token.slice(0, eq), token.slice(eq + 1)] : [token, undefined]
}

function findOption(specs: readonly OptionSpec[], flag: string): OptionSpec | undefined {
  if (flag.startsWith('--')) return specs.find((s) => s.name === flag.slice(2))
  return specs.find((s) => s.short && `-${s.short}` === flag)
}
