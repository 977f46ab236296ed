// What every client command gets: the API client for the chosen server and credentials, the
// config file, the current company, and output that is JSON with --json and text otherwise.
import { type Agent, type Credentials, type Goal, type Project, type Routine, type Run, ShopfloorClient, type Webhook, type WebhookDelivery } from '../../client/index.ts'
import { nextFire } from '../../contract/schedule.ts'
import type { OptionSpec, OptionValues } from './args.ts'
import { ConfigStore } from './config.ts'
import { CliError, EXIT, UsageError } from './errors.ts'
import { readStdin } from './prompt.ts'

export const DEFAULT_URL = 'http://127.0.0.1:8000'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function isUuid(value: string): boolean {
  return UUID.test(value)
}

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
  private readonly io: Io
  private agentsCache?: Promise<Agent[]>

  constructor(settings: CliSettings) {
    this.config = settings.config
    this.url = (settings.url || settings.env.SHOPFLOOR_URL || settings.config.url || DEFAULT_URL).replace(/\/+$/, '')
    this.json = settings.json
    this.io = settings.io
    this.companyFlag = settings.company || settings.env.SHOPFLOOR_COMPANY || undefined
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
    this.io.out(this.json ? JSON.stringify(data ?? null, null, 2) : await human())
  }

  /** A line on stdout in both modes (a stream of JSON lines with --json). */
  emit(text: string): void {
    this.io.out(text)
  }

  /** Diagnostics on stderr, in both modes. */
  warn(text: string): void {
    this.io.err(text)
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
    return unique(matches, 'Company', ref)
  }

  /** An agent by id or by name (case-insensitive; terminated agents included). */
  async findAgent(ref: string): Promise<Agent> {
    const companyId = await this.companyId()
    if (isUuid(ref)) return this.client.agents.get(companyId, ref)
    const wanted = ref.toLowerCase()
    return unique((await this.allAgents()).filter((a) => a.name.toLowerCase() === wanted), 'Agent', ref)
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
    if (!/^[0-9a-f-]{4,}$/.test(wanted)) throw new CliError('NOT_FOUND', `Run not found: ${ref} (give the id or its first characters)`, EXIT.notFound)
    const match = unique((await this.client.runs.list(companyId, { limit: 500 })).filter((r) => r.id.startsWith(wanted)), 'Run', ref)
    return this.client.runs.get(companyId, match.id)
  }

  /** A project by id or name (case-insensitive). */
  async findProject(ref: string): Promise<Project> {
    const companyId = await this.companyId()
    if (isUuid(ref)) return this.client.projects.get(companyId, ref)
    const wanted = ref.toLowerCase()
    return unique((await this.client.projects.list(companyId)).filter((p) => p.name.toLowerCase() === wanted), 'Project', ref)
  }

  /** A goal by id or title (case-insensitive). */
  async findGoal(ref: string): Promise<Goal> {
    const companyId = await this.companyId()
    if (isUuid(ref)) return this.client.goals.get(companyId, ref)
    const wanted = ref.toLowerCase()
    return unique((await this.client.goals.list(companyId)).filter((g) => g.title.toLowerCase() === wanted), 'Goal', ref)
  }

  /** A routine by id, the start of its id as `routines list` shows it, or its title (case-insensitive). */
  async findRoutine(ref: string): Promise<Routine> {
    const companyId = await this.companyId()
    if (isUuid(ref)) return this.client.routines.get(companyId, ref)
    const wanted = ref.toLowerCase()
    const all = await this.client.routines.list(companyId)
    const byTitle = all.filter((r) => r.title.toLowerCase() === wanted)
    if (byTitle.length > 0 || !/^[0-9a-f-]{4,}$/.test(wanted)) return unique(byTitle, 'Routine', ref)
    return unique(all.filter((r) => r.id.startsWith(wanted)), 'Routine', ref)
  }

  /** A webhook subscription by id, the start of its id as `webhooks list` shows it, or its URL. */
  async findWebhook(ref: string): Promise<Webhook> {
    const companyId = await this.companyId()
    if (isUuid(ref)) return this.client.webhooks.get(companyId, ref)
    const all = await this.client.webhooks.list(companyId)
    const byUrl = all.filter((w) => w.url === ref)
    if (byUrl.length > 0 || !/^[0-9a-f-]{4,}$/i.test(ref)) return unique(byUrl, 'Webhook', ref)
    return unique(all.filter((w) => w.id.startsWith(ref.toLowerCase())), 'Webhook', ref)
  }

  /** A delivery of a webhook by id or the start of its id (at least 4 characters, among its 200 newest). */
  async findDelivery(webhookId: string, ref: string): Promise<WebhookDelivery> {
    const wanted = ref.toLowerCase()
    if (!/^[0-9a-f-]{4,}$/.test(wanted)) throw new CliError('NOT_FOUND', `Delivery not found: ${ref} (give the id or its first characters)`, EXIT.notFound)
    const recent = await this.client.webhooks.deliveries(await this.companyId(), webhookId, { limit: 200 })
    return unique(recent.filter((d) => d.id.startsWith(wanted)), 'Delivery', ref)
  }

  /** An approval by id or the start of its id, as `approvals list` shows it. */
  async approvalId(ref: string): Promise<string> {
    if (isUuid(ref)) return ref
    const wanted = ref.toLowerCase()
    if (!/^[0-9a-f-]{4,}$/.test(wanted)) throw new CliError('NOT_FOUND', `Approval not found: ${ref} (give the id or its first characters)`, EXIT.notFound)
    return unique((await this.client.approvals.list(await this.companyId())).filter((a) => a.id.startsWith(wanted)), 'Approval', ref).id
  }

  /** Every agent of the company, terminated included, fetched once per command. */
  private async allAgents(): Promise<Agent[]> {
    const companyId = await this.companyId()
    this.agentsCache ??= this.client.agents.list(companyId, { include_terminated: true })
    return this.agentsCache
  }
}

function unique<T>(matches: T[], entity: string, ref: string): T {
  if (matches.length === 1) return matches[0]
  if (matches.length === 0) throw new CliError('NOT_FOUND', `${entity} not found: ${ref}`, EXIT.notFound)
  throw new CliError('AMBIGUOUS', `${matches.length} ${entity.toLowerCase()}s match "${ref}": use the id (or more of it)`, EXIT.conflict)
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
