// The typed client of the whole public API: one method per endpoint, grouped by resource.
// Company-scoped methods take the company id first; task methods take a task reference (its
// UUID or its key such as `ENG-12`).
import { followEvents, type StreamOptions } from './events.ts'
import { type ClientOptions, type Credentials, errorFromResponse, HttpClient, type QueryValue, type RequestOptions } from './http.ts'
import type * as T from './types.ts'

const seg = encodeURIComponent

export class ShopfloorClient {
  readonly http: HttpClient

  constructor(options: ClientOptions) {
    this.http = new HttpClient(options)
  }

  private call<R>(method: string, path: string, options?: RequestOptions): Promise<R> {
    return this.http.request<R>(method, path, options)
  }

  private co(companyId: string, rest = ''): string {
    return `/api/companies/${seg(companyId)}${rest}`
  }

  private list<R>(path: string, query?: object): Promise<R> {
    return this.call('GET', path, { query: query as Record<string, QueryValue> | undefined })
  }

  // --- Service --------------------------------------------------------------------------------

  readonly service = {
    info: () => this.call<T.ServiceInfo>('GET', '/', { auth: false }),
    health: () => this.call<T.Health>('GET', '/health', { auth: false }),
  }

  // --- Accounts and sessions --------------------------------------------------------------------

  readonly auth = {
    /** Registers and signs in: the new session becomes this client's credentials. */
    register: async (body: { email: string; password: string; name: string; company?: string }) =>
      this.startSession(await this.call<T.Session>('POST', '/api/register', { body, auth: false })),
    login: async (email: string, password: string) =>
      this.startSession(await this.call<T.Session>('POST', '/api/login', { body: { email, password }, auth: false })),
    loginIdp: async (credential: string) =>
      this.startSession(await this.call<T.Session>('POST', '/api/login/idp', { body: { credential }, auth: false })),
    config: () => this.call<{ idp_client_id: string | null; has_accounts: boolean }>('GET', '/api/auth/config', { auth: false }),
    /**
     * Ends this session (its refresh token), or every session of the user with `everywhere`.
     * Without a refresh token this session cannot be named, and a logout without one would end
     * them all: that is refused here rather than done by surprise.
     */
    logout: async (options: { everywhere?: boolean } = {}) => {
      const credentials = this.http.getCredentials()
      const refreshToken = credentials && 'refreshToken' in credentials ? credentials.refreshToken : null
      if (credentials && 'accessToken' in credentials && !refreshToken && !options.everywhere) {
        throw new Error('logout: this client holds no refresh token to end its own session; pass { everywhere: true } to end every session')
      }
      const body = options.everywhere || !refreshToken ? undefined : { refresh_token: refreshToken }
      await this.call<void>('POST', '/api/logout', { body })
      this.http.setCredentials(null)
    },
    forgotPassword: (email: string) => this.call<{ message: string }>('POST', '/api/password/forgot', { body: { email }, auth: false }),
    resetPassword: (token: string, password: string) =>
      this.call<{ message: string }>('POST', '/api/password/reset', { body: { token, password }, auth: false }),
    /** Confirms the account's email address with the token of the link mailed at registration. */
    verifyEmail: (token: string) => this.call<void>('POST', '/api/verify-email', { body: { token }, auth: false }),
  }

  private startSession(session: T.Session): T.Session {
    this.http.setCredentials({ accessToken: session.access_token, refreshToken: session.refresh_token })
    return session
  }

  /** Switches credentials, for example to an API key. */
  useCredentials(credentials: Credentials | null): void {
    this.http.setCredentials(credentials)
  }

  readonly me = {
    get: () => this.call<T.User>('GET', '/api/me'),
    update: (body: { name?: string; avatar_url?: string | null }) => this.call<T.User>('PATCH', '/api/me', { body }),
    updatePreferences: (body: T.PreferencesPatch) => this.call<T.Preferences>('PATCH', '/api/me/preferences', { body }),
  }

  readonly apiKeys = {
    create: (body: { name: string; expires_in_days?: number; expires_at?: string; company_id?: string }) => this.call<T.CreatedApiKey>('POST', '/api/me/api-keys', { body }),
    list: () => this.call<T.ApiKey[]>('GET', '/api/me/api-keys'),
    revoke: (keyId: string) => this.call<void>('DELETE', `/api/me/api-keys/${seg(keyId)}`),
  }

  // --- Companies --------------------------------------------------------------------------------

  readonly companies = {
    list: () => this.call<T.Company[]>('GET', '/api/companies'),
    create: (body: T.CompanyCreate) => this.call<T.Company>('POST', '/api/companies', { body }),
    get: (companyId: string) => this.call<T.Company>('GET', this.co(companyId)),
    update: (companyId: string, body: T.CompanyUpdate) => this.call<T.Company>('PATCH', this.co(companyId), { body }),
    members: (companyId: string) => this.call<T.Member[]>('GET', this.co(companyId, '/members')),
    /** The company as a document for import elsewhere (no runs, audit, keys or secrets). */
    export: (companyId: string) => this.call<T.CompanyExport>('GET', this.co(companyId, '/export')),
    /** A new company owned by the caller from a document (an export or a template's). */
    import: (body: T.CompanyImport) => this.call<T.Company>('POST', '/api/companies/import', { body }),
    /** Ready companies to start from, each with its document. */
    templates: () => this.call<T.Template[]>('GET', '/api/templates'),
  }

  // --- Webhooks (owners and admins) -------------------------------------------------------------

  readonly webhooks = {
    list: (companyId: string) => this.call<T.Webhook[]>('GET', this.co(companyId, '/webhooks')),
    /** The answer carries the signing secret, this once. */
    create: (companyId: string, body: T.WebhookCreate) => this.call<T.WebhookWithSecret>('POST', this.co(companyId, '/webhooks'), { body }),
    get: (companyId: string, webhookId: string) => this.call<T.Webhook>('GET', this.co(companyId, `/webhooks/${seg(webhookId)}`)),
    update: (companyId: string, webhookId: string, body: T.WebhookPatch) =>
      this.call<T.Webhook>('PATCH', this.co(companyId, `/webhooks/${seg(webhookId)}`), { body }),
    delete: (companyId: string, webhookId: string) => this.call<void>('DELETE', this.co(companyId, `/webhooks/${seg(webhookId)}`)),
    deliveries: (companyId: string, webhookId: string, query: { limit?: number } = {}) =>
      this.list<T.WebhookDelivery[]>(this.co(companyId, `/webhooks/${seg(webhookId)}/deliveries`), query),
    retry: (companyId: string, webhookId: string, deliveryId: string) =>
      this.call<T.WebhookDelivery>('POST', this.co(companyId, `/webhooks/${seg(webhookId)}/deliveries/${seg(deliveryId)}/retry`)),
  }

  // --- People: members and invitations ---------------------------------------------------------

  readonly members = {
    list: (companyId: string) => this.call<T.Member[]>('GET', this.co(companyId, '/members')),
    setRole: (companyId: string, userId: string, role: T.Role) =>
      this.call<T.Member>('PATCH', this.co(companyId, `/members/${seg(userId)}`), { body: { role } }),
    remove: (companyId: string, userId: string) => this.call<void>('DELETE', this.co(companyId, `/members/${seg(userId)}`)),
  }

  readonly invitations = {
    create: (companyId: string, body: { email: string; role: 'admin' | 'member' }) =>
      this.call<T.Invitation>('POST', this.co(companyId, '/invitations'), { body }),
    list: (companyId: string) => this.call<T.Invitation[]>('GET', this.co(companyId, '/invitations')),
    revoke: (companyId: string, invitationId: string) => this.call<void>('DELETE', this.co(companyId, `/invitations/${seg(invitationId)}`)),
    /** Joins the invitation's company (needs a password session of the invited address). */
    accept: (token: string) => this.call<T.Company>('POST', '/api/invitations/accept', { body: { token } }),
  }

  // --- Agents -----------------------------------------------------------------------------------

  readonly agents = {
    list: (companyId: string, query: { include_terminated?: boolean } = {}) =>
      this.list<T.Agent[]>(this.co(companyId, '/agents'), query),
    get: (companyId: string, agentId: string) => this.call<T.Agent>('GET', this.co(companyId, `/agents/${seg(agentId)}`)),
    hire: (companyId: string, body: T.AgentHire) => this.call<T.Agent>('POST', this.co(companyId, '/agents'), { body }),
    update: (companyId: string, agentId: string, body: T.AgentUpdate) =>
      this.call<T.Agent>('PATCH', this.co(companyId, `/agents/${seg(agentId)}`), { body }),
    pause: (companyId: string, agentId: string) => this.agentAction<T.Agent>(companyId, agentId, 'pause'),
    resume: (companyId: string, agentId: string) => this.agentAction<T.Agent>(companyId, agentId, 'resume'),
    terminate: (companyId: string, agentId: string) => this.agentAction<T.Agent>(companyId, agentId, 'terminate'),
    wake: (companyId: string, agentId: string, body: T.WakeRequest = {}) => this.agentAction<T.Run>(companyId, agentId, 'wake', body),
    org: (companyId: string) => this.call<T.OrgNode[]>('GET', this.co(companyId, '/org')),
  }

  private agentAction<R>(companyId: string, agentId: string, action: string, body?: unknown): Promise<R> {
    return this.call<R>('POST', this.co(companyId, `/agents/${seg(agentId)}/${action}`), { body })
  }

  // --- Tasks and comments -----------------------------------------------------------------------

  readonly tasks = {
    list: (companyId: string, filters: T.TaskFilters = {}) => this.list<T.Task[]>(this.co(companyId, '/tasks'), filters),
    get: (companyId: string, taskRef: string) => this.call<T.Task>('GET', this.co(companyId, `/tasks/${seg(taskRef)}`)),
    create: (companyId: string, body: T.TaskCreate) => this.call<T.Task>('POST', this.co(companyId, '/tasks'), { body }),
    update: (companyId: string, taskRef: string, body: T.TaskUpdate) =>
      this.call<T.Task>('PATCH', this.co(companyId, `/tasks/${seg(taskRef)}`), { body }),
    delete: (companyId: string, taskRef: string) => this.call<void>('DELETE', this.co(companyId, `/tasks/${seg(taskRef)}`)),
    /** Approve the task's work (done, merged with merge_on_approve) or request changes (a run for its assignee). */
    review: (companyId: string, taskRef: string, body: T.ReviewRequest) =>
      this.call<T.Task>('POST', this.co(companyId, `/tasks/${seg(taskRef)}/review`), { body }),
  }

  readonly comments = {
    list: (companyId: string, taskRef: string) => this.call<T.Comment[]>('GET', this.commentsPath(companyId, taskRef)),
    create: (companyId: string, taskRef: string, body: T.CommentCreate) =>
      this.call<T.Comment>('POST', this.commentsPath(companyId, taskRef), { body }),
    update: (companyId: string, taskRef: string, commentId: string, body: { body?: string; kind?: T.CommentKind }) =>
      this.call<T.Comment>('PATCH', this.commentsPath(companyId, taskRef, commentId), { body }),
    delete: (companyId: string, taskRef: string, commentId: string) =>
      this.call<void>('DELETE', this.commentsPath(companyId, taskRef, commentId)),
  }

  private commentsPath(companyId: string, taskRef: string, commentId?: string): string {
    return this.co(companyId, `/tasks/${seg(taskRef)}/comments${commentId ? `/${seg(commentId)}` : ''}`)
  }

  // --- Goals, projects, routines ----------------------------------------------------------------

  readonly goals = this.crud<T.Goal, T.GoalCreate, T.GoalUpdate>('goals')
  readonly projects = this.crud<T.Project, T.ProjectCreate, T.ProjectUpdate>('projects')
  readonly routines = {
    ...this.crud<T.Routine, T.RoutineCreate, T.RoutineUpdate>('routines'),
    trigger: (companyId: string, routineId: string) =>
      this.call<T.RoutineTrigger>('POST', this.co(companyId, `/routines/${seg(routineId)}/trigger`)),
  }

  /** list, get, create, update, delete of a plain company collection (projects have no delete). */
  private crud<R, C, U>(collection: string) {
    const item = (companyId: string, id: string) => this.co(companyId, `/${collection}/${seg(id)}`)
    return {
      list: (companyId: string) => this.call<R[]>('GET', this.co(companyId, `/${collection}`)),
      get: (companyId: string, id: string) => this.call<R>('GET', item(companyId, id)),
      create: (companyId: string, body: C) => this.call<R>('POST', this.co(companyId, `/${collection}`), { body }),
      update: (companyId: string, id: string, body: U) => this.call<R>('PATCH', item(companyId, id), { body }),
      delete: (companyId: string, id: string) => this.call<void>('DELETE', item(companyId, id)),
    }
  }

  // --- Knowledge: documents and skills ----------------------------------------------------------

  readonly documents = {
    /** Newest first; with `q`, a full-text search, best matches first. */
    list: (companyId: string, query: T.DocumentListQuery = {}) => this.list<T.Document[]>(this.co(companyId, '/documents'), query),
    get: (companyId: string, documentId: string) => this.call<T.Document>('GET', this.co(companyId, `/documents/${seg(documentId)}`)),
    create: (companyId: string, body: T.DocumentCreate) => this.call<T.Document>('POST', this.co(companyId, '/documents'), { body }),
    update: (companyId: string, documentId: string, body: T.DocumentUpdate) =>
      this.call<T.Document>('PATCH', this.co(companyId, `/documents/${seg(documentId)}`), { body }),
    delete: (companyId: string, documentId: string) => this.call<void>('DELETE', this.co(companyId, `/documents/${seg(documentId)}`)),
    versions: (companyId: string, documentId: string) =>
      this.call<T.DocumentVersion[]>('GET', this.co(companyId, `/documents/${seg(documentId)}/versions`)),
  }

  readonly skills = this.crud<T.Skill, T.SkillCreate, T.SkillUpdate>('skills')

  // --- Runs (people and the runner protocol) ----------------------------------------------------

  readonly runs = {
    list: (companyId: string, filters: T.RunFilters = {}) => this.list<T.Run[]>(this.co(companyId, '/runs'), filters),
    get: (companyId: string, runId: string, query: T.GetRunQuery = {}) => this.list<T.Run>(this.co(companyId, `/runs/${seg(runId)}`), query),
    /** A page of the transcript: the entries after the first `after`, at most `limit` (500 by default, up to 2,000). */
    transcript: (companyId: string, runId: string, query: { after?: number; limit?: number } = {}) =>
      this.list<{ entries: T.TranscriptEntry[]; transcript_total: number }>(this.co(companyId, `/runs/${seg(runId)}/transcript`), query),
    cancel: (companyId: string, runId: string) => this.call<T.Run>('POST', this.co(companyId, `/runs/${seg(runId)}/cancel`)),
    /** The next runnable run, or null when there is nothing to run (204). */
    claim: async (companyId: string, body: T.ClaimRequest) =>
      (await this.call<T.RunContext | undefined>('POST', this.co(companyId, '/runs/claim'), { body })) ?? null,
    /** A new company's first run, done by a simulated agent inside the server (answers it running). */
    trial: (companyId: string, runId: string) => this.call<T.Run>('POST', this.co(companyId, `/runs/${seg(runId)}/trial`)),
    heartbeat: (companyId: string, runId: string, runnerId: string, cooldowns?: T.Cooldown[]) =>
      this.call<T.Run>('POST', this.co(companyId, `/runs/${seg(runId)}/heartbeat`), {
        body: { runner_id: runnerId, ...(cooldowns ? { cooldowns } : {}) },
      }),
    report: (companyId: string, runId: string, body: T.RunReport) =>
      this.call<T.Run>('PATCH', this.co(companyId, `/runs/${seg(runId)}`), { body }),
    expireStale: (companyId: string) => this.call<{ expired: string[] }>('POST', this.co(companyId, '/runs/expire-stale')),
    /** The run's diff (text/x-diff, up to 5 MiB); null when the run has none. */
    patch: async (companyId: string, runId: string): Promise<string | null> => {
      const response = await this.http.send('GET', this.co(companyId, `/runs/${seg(runId)}/patch`))
      if (response.status === 404) {
        const text = await response.text()
        if (text.includes('"Patch not found"')) return null
        throw await errorFromResponse(new Response(text, { status: 404, headers: response.headers }))
      }
      if (!response.ok) throw await errorFromResponse(response)
      return response.text()
    },
    /** Runners: the run's diff, kept for GET .../patch. */
    uploadPatch: (companyId: string, runId: string, runnerId: string, patch: string) =>
      this.call<void>('PUT', this.co(companyId, `/runs/${seg(runId)}/patch`), { body: { runner_id: runnerId, patch } }),
    /** With a run credential: the run it belongs to and that run's context (GET /api/run). */
    current: () => this.call<T.RunContext>('GET', '/api/run'),
  }

  /** Runners the server heard from in the last 24 hours, with the runs they hold. */
  readonly runners = {
    list: (companyId: string) => this.call<T.Runner[]>('GET', this.co(companyId, '/runners')),
    goodbye: (companyId: string, runnerId: string) => this.call<void>('POST', this.co(companyId, `/runners/${seg(runnerId)}/goodbye`)),
  }

  // --- Approvals --------------------------------------------------------------------------------

  readonly approvals = {
    list: (companyId: string, query: { status?: T.ApprovalStatus } = {}) =>
      this.list<T.Approval[]>(this.co(companyId, '/approvals'), query),
    get: (companyId: string, approvalId: string) => this.call<T.Approval>('GET', this.co(companyId, `/approvals/${seg(approvalId)}`)),
    approve: (companyId: string, approvalId: string, body: T.Decision = {}) =>
      this.call<T.Approval>('POST', this.co(companyId, `/approvals/${seg(approvalId)}/approve`), { body }),
    reject: (companyId: string, approvalId: string, body: Omit<T.Decision, 'new_budget_cents'> = {}) =>
      this.call<T.Approval>('POST', this.co(companyId, `/approvals/${seg(approvalId)}/reject`), { body }),
  }

  // --- Insights and live events -----------------------------------------------------------------

  readonly insights = {
    dashboard: (companyId: string, query: { days?: 7 | 14 | 30 } = {}) => this.list<T.Dashboard>(this.co(companyId, '/dashboard'), query),
    activity: (companyId: string, query: T.ActivityQuery = {}) => this.list<T.AuditEvent[]>(this.co(companyId, '/activity'), query),
    costs: (companyId: string, query: { month?: string } = {}) => this.list<T.Costs>(this.co(companyId, '/costs'), query),
    inbox: (companyId: string) => this.call<T.Inbox>('GET', this.co(companyId, '/inbox')),
  }

  /** Follows the company's live events; see followEvents. */
  events(companyId: string, options: StreamOptions): Promise<void> {
    return followEvents(this.http, companyId, options)
  }
}
