// What every client command gets: the API client for the chosen server and credentials, the
// config file, the current company, and output that is JSON with --json and text otherwise.
import { type Agent, type Credentials, type Goal, type Project, type Routine, type Run, ShopfloorClient, type Webhook, type WebhookDelivery } from '../../client/index.ts'
import { isUuid } from '../../contract/common.ts'
import { nextFire } from '../../contract/schedule.ts'
import type { OptionSpec, OptionValues } from './args.ts'
import { ConfigStore } from './config.ts'
import { CliError, EXIT, UsageError } from './errors.ts'
import { plural, shortId, visible } from './format.ts'
import { readStdin } from './prompt.ts'

export const DEFAULT_URL = 'http://127.0.0.1:8000'

export interface Input {
  /** Positional arguments by the names in the command's `args`. */
  args: Record<string, string | undefined>
  options: OptionValues
}

export interface CommandSpec {
  name: string
  summary: string
  /** Positional synopsis: `<ref>` required, `[note]` optional, `<title...>` takes the rest. */
  args?: string[]
  options?: OptionSpec[]
  /** Extra help text after the options. */
  notes?: string
  /**
   * A command that destroys something says what, as a question (`Delete task DOC-1?`): it then
   * takes --yes, and without it asks on a terminal and refuses (usage error) elsewhere.
   */
  confirm?: (args: Record<string, string | undefined>) => string
  run(cli: Cli, input: Input): Promise<void>
}

export interface GroupSpec {
  name: string
  summary: string
  commands: CommandSpec[]
}

export interface Io {
  out(text: string): void
  err(text: string): void
}

export interface CliSettings {
  env: NodeJS.ProcessEnv
  config: ConfigStore
  url?: string
  company?: string
  json: boolean
  io: Io
}

export class Cli {
  readonly url: string
  readonly json: boolean
  readonly config: ConfigStore
  readonly client: ShopfloorClient
  /** How this process authenticates: an API key from the environment, a stored session, or nothing. */
  readonly via: 'key' | 'session' | 'none'
  private readonly companyFlag?: string
  /** --company given on this command line (not SHOPFLOOR_COMPANY nor the current company). */
  readonly companyGiven: boolean
  private readonly io: Io
  private agentsCache?: Promise<Agent[]>

  constructor(settings: CliSettings) {
    this.config = settings.config
    this.url = (settings.url || settings.env.SHOPFLOOR_URL || settings.config.url || DEFAULT_URL).replace(/\/+$/, '')
    this.json = settings.json
    this.io = settings.io
    this.companyFlag = settings.company || settings.env.SHOPFLOOR_COMPANY || undefined
    this.companyGiven = Boolean(settings.company)
    const apiKey = settings.env.SHOPFLOOR_API_KEY?.trim()
    const profile = this.config.profile(this.url)
    let credentials: Credentials | null = null
    if (apiKey) credentials = { apiKey }
    else if (profile.access_token) credentials = { accessToken: profile.access_token, refreshToken: profile.refresh_token ?? null }
    this.via = apiKey ? 'key' : credentials ? 'session' : 'none'
    this.client = new ShopfloorClient({
      baseUrl: this.url,
      credentials,
      // A refreshed access token is saved at once; a refused refresh forgets the session.
      onTokens: (tokens) => {
        if (this.via === 'key') return
        this.config.update(this.url, { access_token: tokens?.accessToken, refresh_token: tokens?.refreshToken ?? undefined })
      },
    })
  }

  /** With --json the data as JSON; otherwise the human rendering (only computed when needed). */
  async print(data: unknown, human: () => string | Promise<string>): Promise<void> {
    this.io.out(this.json ? jsonText(data, 2) : visible(await human()))
  }

  /** One item of a stream on stdout: a JSON object on one line with --json, else its human line. */
  async emit(data: unknown, human: () => string | Promise<string>): Promise<void> {
    this.io.out(this.json ? jsonText(data) : visible(await human()))
  }

  /** A JSON document on stdout in both modes, for a program or a file (`companies export`). */
  document(data: unknown): void {
    this.io.out(jsonText(data, 2))
  }

  /** Text on stdout exactly as it is (a diff), in both modes. */
  raw(text: string): void {
    this.io.out(text)
  }

  /** Diagnostics on stderr, in both modes. */
  warn(text: string): void {
    this.io.err(visible(text))
  }

  /**
   * Warns when the scheduler cannot read a cron just stored (a routine's, an agent's heartbeat):
   * the API takes any text (SPEC.md), and such a schedule never fires.
   */
  warnUnreadableCron(cron: string | null | undefined, what: string): void {
    const next = cron ? nextFire(cron) : null
    if (next && 'error' in next) this.warn(`Warning: the scheduler cannot read the schedule "${cron}" (${next.error}): ${what} until it is changed`)
  }

  /** The company to act in: --company, SHOPFLOOR_COMPANY, or the one chosen with `companies use`. */
  async companyId(): Promise<string> {
    const chosen = this.companyFlag ?? this.config.profile(this.url).company_id
    if (!chosen) {
      throw new CliError('NO_COMPANY', 'No company chosen: pass --company or run "shopfloor companies use <company>"')
    }
    return isUuid(chosen) ? chosen : (await this.findCompany(chosen)).id
  }

  /** A company by id, exact name or task prefix (case-insensitive). */
  async findCompany(ref: string) {
    const companies = await this.client.companies.list()
    const wanted = ref.toLowerCase()
    const matches = companies.filter(
      (c) => c.id === ref || c.name.toLowerCase() === wanted || c.task_prefix.toLowerCase() === wanted,
    )
    return unique(matches, 'company', ref, (c) => `${c.name} (${c.task_prefix}, ${c.id})`, ID_ONLY)
  }

  /**
   * An agent by id, name (case-insensitive) or the start of its id (at least 4 characters);
   * terminated agents included. A name wins over an id start that looks the same.
   */
  async findAgent(ref: string): Promise<Agent> {
    const companyId = await this.companyId()
    if (isUuid(ref)) return this.client.agents.get(companyId, ref)
    const wanted = ref.toLowerCase()
    const all = await this.allAgents()
    const label = (a: Agent) => `${a.name} (${shortId(a.id)})`
    const byName = all.filter((a) => a.name.toLowerCase() === wanted)
    if (byName.length > 0 || !ID_START.test(wanted)) return unique(byName, 'agent', ref, label, ID_HINT)
    return unique(all.filter((a) => a.id.startsWith(wanted)), 'agent', ref, label, ID_HINT)
  }

  /** The agent's id, or null for the word `none` (clears an assignee or owner). */
  async agentIdOrNone(ref: string): Promise<string | null> {
    return ref.toLowerCase() === 'none' ? null : (await this.findAgent(ref)).id
  }

  /** The agent names by id, for tables that show who does what. */
  async agentNames(): Promise<Map<string, string>> {
    return new Map((await this.allAgents()).map((a) => [a.id, a.name]))
  }

  /**
   * A run by id or by the start of its id as lists show it (at least 4 characters, among the
   * company's 500 newest runs); a start shared by several runs is an error.
   */
  async findRun(ref: string): Promise<Run> {
    const companyId = await this.companyId()
    if (isUuid(ref)) return this.client.runs.get(companyId, ref)
    const wanted = ref.toLowerCase()
    if (!ID_START.test(wanted)) throw new CliError('NOT_FOUND', `Run not found: ${ref} (give the id or its first characters)`, EXIT.notFound)
    const recent = (await this.client.runs.list(companyId, { limit: 500 })).filter((r) => r.id.startsWith(wanted))
    const match = unique(recent, 'run', ref, (r) => shortId(r.id), ID_HINT)
    return this.client.runs.get(companyId, match.id)
  }

  /** A project by id or name (case-insensitive). */
  async findProject(ref: string): Promise<Project> {
    const companyId = await this.companyId()
    if (isUuid(ref)) return this.client.projects.get(companyId, ref)
    const wanted = ref.toLowerCase()
    return unique((await this.client.projects.list(companyId)).filter((p) => p.name.toLowerCase() === wanted), 'project', ref, (p) => `${p.name} (${p.id})`, ID_ONLY)
  }

  /** A goal by id or title (case-insensitive). */
  async findGoal(ref: string): Promise<Goal> {
    const companyId = await this.companyId()
    if (isUuid(ref)) return this.client.goals.get(companyId, ref)
    const wanted = ref.toLowerCase()
    return unique((await this.client.goals.list(companyId)).filter((g) => g.title.toLowerCase() === wanted), 'goal', ref, (g) => `${g.title} (${g.id})`, ID_ONLY)
  }

  /** A routine by id, the start of its id as `routines list` shows it, or its title (case-insensitive). */
  async findRoutine(ref: string): Promise<Routine> {
    const companyId = await this.companyId()
    if (isUuid(ref)) return this.client.routines.get(companyId, ref)
    const wanted = ref.toLowerCase()
    const all = await this.client.routines.list(companyId)
    const label = (r: Routine) => `${r.title} (${shortId(r.id)})`
    const byTitle = all.filter((r) => r.title.toLowerCase() === wanted)
    if (byTitle.length > 0 || !ID_START.test(wanted)) return unique(byTitle, 'routine', ref, label, ID_HINT)
    return unique(all.filter((r) => r.id.startsWith(wanted)), 'routine', ref, label, ID_HINT)
  }

  /** A webhook subscription by id, the start of its id as `webhooks list` shows it, or its URL. */
  async findWebhook(ref: string): Promise<Webhook> {
    const companyId = await this.companyId()
    if (isUuid(ref)) return this.client.webhooks.get(companyId, ref)
    const all = await this.client.webhooks.list(companyId)
    const label = (w: Webhook) => `${w.url} (${shortId(w.id)})`
    const byUrl = all.filter((w) => w.url === ref)
    if (byUrl.length > 0 || !ID_START.test(ref.toLowerCase())) return unique(byUrl, 'webhook', ref, label, ID_HINT)
    return unique(all.filter((w) => w.id.startsWith(ref.toLowerCase())), 'webhook', ref, label, ID_HINT)
  }

  /** A delivery of a webhook by id or the start of its id (at least 4 characters, among its 200 newest). */
  async findDelivery(webhookId: string, ref: string): Promise<WebhookDelivery> {
    const wanted = ref.toLowerCase()
    if (!ID_START.test(wanted)) throw new CliError('NOT_FOUND', `Delivery not found: ${ref} (give the id or its first characters)`, EXIT.notFound)
    const recent = await this.client.webhooks.deliveries(await this.companyId(), webhookId, { limit: 200 })
    return unique(recent.filter((d) => d.id.startsWith(wanted)), 'delivery', ref, (d) => `${shortId(d.id)} (${d.type})`, ID_HINT)
  }

  /** An approval by id or the start of its id, as `approvals list` shows it. */
  async approvalId(ref: string): Promise<string> {
    if (isUuid(ref)) return ref
    const wanted = ref.toLowerCase()
    if (!ID_START.test(wanted)) throw new CliError('NOT_FOUND', `Approval not found: ${ref} (give the id or its first characters)`, EXIT.notFound)
    const all = await this.client.approvals.list(await this.companyId())
    return unique(all.filter((a) => a.id.startsWith(wanted)), 'approval', ref, (a) => `${shortId(a.id)} (${a.type})`, ID_HINT).id
  }

  /** Every agent of the company, terminated included, fetched once per command. */
  private async allAgents(): Promise<Agent[]> {
    const companyId = await this.companyId()
    this.agentsCache ??= this.client.agents.list(companyId, { include_terminated: true })
    return this.agentsCache
  }
}

/** What to type to pick one of several records found by an id start (or a shared name). */
const ID_HINT = 'the id of the one you mean, or enough of its start to match only it'
/** The same for records found by their whole id only (companies, projects, goals). */
const ID_ONLY = 'the id of the one you mean'
/** The start of an id as lists show it: at least 4 characters. */
const ID_START = /^[0-9a-f-]{4,}$/

/**
 * The one record `ref` names. None is NOT_FOUND; several is AMBIGUOUS, listing each (`label`)
 * and saying what to type instead (`hint`), since the same name may be held by several records.
 */
function unique<T>(matches: T[], entity: string, ref: string, label: (match: T) => string, hint: string): T {
  if (matches.length === 1) return matches[0]
  const capital = entity[0].toUpperCase() + entity.slice(1)
  if (matches.length === 0) throw new CliError('NOT_FOUND', `${capital} not found: ${ref}`, EXIT.notFound)
  const listed = matches.slice(0, 5).map(label).join(', ') + (matches.length > 5 ? ', ...' : '')
  throw new CliError('AMBIGUOUS', `"${ref}" matches ${plural(matches.length, entity)}: ${listed}. Type ${hint}`, EXIT.conflict)
}

/**
 * JSON as the API sent it. JSON.stringify escapes C0 controls but leaves DEL, the C1 range
 * (U+0080-U+009F) and the bidirectional controls (format.ts, visible()) raw, and a terminal may
 * act on those; escaped as \uXXXX they parse to the same strings.
 */
export function jsonText(data: unknown, indent?: number): string {
  return JSON.stringify(data ?? null, null, indent).replace(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

// --- Option readers -------------------------------------------------------------------------

export function text(options: OptionValues, name: string): string | undefined {
  const value = options[name]
  return typeof value === 'string' ? value : undefined
}

/** A text option where the word `none` means null (clears the field). */
export function nullable(options: OptionValues, name: string): string | null | undefined {
  const value = text(options, name)
  return value === undefined ? undefined : value.toLowerCase() === 'none' ? null : value
}

/** A long-text option (`--description`): `none` clears it, `-` reads it from standard input. */
export async function longText(options: OptionValues, name: string): Promise<string | null | undefined> {
  const value = nullable(options, name)
  return value === '-' ? readStdin() : value
}

export function integer(options: OptionValues, name: string): number | undefined {
  const value = text(options, name)
  if (value === undefined) return undefined
  if (!/^-?\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number, got "${value}"`)
  return Number(value)
}

/** Money options are given in cents, as the API counts them. */
export const cents = integer

export function list(options: OptionValues, name: string): string[] | undefined {
  const value = options[name]
  if (value === undefined) return undefined
  const values = Array.isArray(value) ? value : [String(value)]
  return values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean)
}

/** A setting given as `on` or `off` (so an update can turn it either way). */
export function onOff(options: OptionValues, name: string): boolean | undefined {
  const value = text(options, name)
  if (value === undefined) return undefined
  if (value === 'on' || value === 'off') return value === 'on'
  throw new UsageError(`--${name} must be on or off, got "${value}"`)
}

export function flag(options: OptionValues, name: string): boolean {
  return options[name] === true
}
