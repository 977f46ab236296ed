// The transport under the typed client: bearer credentials, one shared token refresh on 401,
// retries with backoff, and the error envelope turned into ApiError. Only global fetch and
// timers are used, so the same module runs in Node and in the browser.

/** An access+refresh token pair from sign-in, or a personal API key for unattended use. */
export type Credentials =
  | { accessToken: string; refreshToken?: string | null }
  | { apiKey: string }

export interface TokenPair {
  accessToken: string
  refreshToken: string | null
}

export interface RetryOptions {
  /** Further attempts after the first (0 = never retry). */
  retries: number
  /** Delay before the first retry; doubles each time up to maxDelayMs. */
  baseDelayMs: number
  maxDelayMs: number
}

export interface ClientOptions {
  baseUrl: string
  credentials?: Credentials | null
  /**
   * Called whenever the session changes: after sign-in, after a refresh (new access token), and
   * with null when the session is gone (refresh refused). Lets the CLI or the web app persist it.
   */
  onTokens?: (tokens: TokenPair | null) => void
  /** Retry network errors, 429, 500 and 503 with backoff; false turns retrying off. */
  retry?: Partial<RetryOptions> | false
  fetch?: typeof fetch
}

export const DEFAULT_RETRY: RetryOptions = { retries: 3, baseDelayMs: 500, maxDelayMs: 8000 }
const RETRY_STATUSES = new Set([429, 500, 503])

/** Every failed call: the server's error envelope, or HTTP_ERROR when a body has none. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

/** A request that never reached an answer (connection refused, DNS, reset...). */
export class NetworkError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause })
    this.name = 'NetworkError'
  }
}

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number | boolean)[]

export interface RequestOptions {
  query?: Record<string, QueryValue>
  body?: unknown
  /** Send the bearer credential (default true); public endpoints pass false. */
  auth?: boolean
  signal?: AbortSignal
  headers?: Record<string, string>
  /** Override the client's retry policy for this call (the event stream has its own). */
  retry?: boolean
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(done, ms)
    function done() {
      signal?.removeEventListener('abort', abort)
      resolve()
    }
    function abort() {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    signal?.addEventListener('abort', abort, { once: true })
  })
}

/** Turns a non-2xx response into an ApiError (reads the body). */
export async function errorFromResponse(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '')
  try {
    const error = JSON.parse(text)?.error
    if (error && typeof error.code === 'string') {
      return new ApiError(response.status, error.code, String(error.message ?? ''), error.details ?? {})
    }
  } catch {
    // not JSON: falls through to HTTP_ERROR
  }
  return new ApiError(response.status, 'HTTP_ERROR', response.statusText || `HTTP ${response.status}`)
}

export class HttpClient {
  readonly baseUrl: string
  private credentials: Credentials | null
  private readonly onTokens?: (tokens: TokenPair | null) => void
  private readonly retryPolicy: RetryOptions
  private readonly fetchImpl: typeof fetch
  /** The refresh in flight, shared by every request that failed with 401 meanwhile. */
  private refreshing: Promise<boolean> | null = null

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.credentials = options.credentials ?? null
    this.onTokens = options.onTokens
    this.retryPolicy = options.retry === false ? { ...DEFAULT_RETRY, retries: 0 } : { ...DEFAULT_RETRY, ...options.retry }
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  }

  getCredentials(): Credentials | null {
    return this.credentials
  }

  /** Replaces the credentials; token pairs are reported through onTokens. */
  setCredentials(credentials: Credentials | null): void {
    this.credentials = credentials
    if (credentials === null) this.onTokens?.(null)
    else if ('accessToken' in credentials) {
      this.onTokens?.({ accessToken: credentials.accessToken, refreshToken: credentials.refreshToken ?? null })
    }
  }

  /** A call answering JSON (or undefined for 204); failures throw ApiError or NetworkError. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, options)
    if (!response.ok) throw await errorFromResponse(response)
    if (response.status === 204) return undefined as T
    const text = await response.text()
    try {
      return (text ? JSON.parse(text) : undefined) as T
    } catch {
      // A 2xx page that is not JSON: a wrong base URL, or a proxy's page.
      throw new ApiError(response.status, 'INVALID_RESPONSE', `Expected JSON from ${method} ${path}, got ${response.headers.get('content-type') ?? 'no content type'}`)
    }
  }

  /**
   * The raw response after authentication and retries, whatever its status (the body is unread).
   * A 401 on an authenticated call refreshes the session once and repeats the call once.
   */
  async send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const authenticated = options.auth !== false
    const used = authenticated ? this.bearer() : null
    let response = await this.sendWithRetry(method, path, options, used)
    if (response.status === 401 && used && (await this.renewAfter(used))) {
      await response.body?.cancel().catch(() => undefined)
      const renewed = this.bearer()
      response = await this.sendWithRetry(method, path, options, renewed)
      if (response.status === 401 && renewed === this.bearer() && this.credentials && 'accessToken' in this.credentials) {
        // The fresh token was refused too: the session is no good any more.
        this.setCredentials(null)
      }
    }
    return response
  }

  url(path: string, query?: Record<string, QueryValue>): string {
    const params = new URLSearchParams()
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue
      for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item))
    }
    const search = params.toString()
    return `${this.baseUrl}${path}${search ? `?${search}` : ''}`
  }

  private bearer(): string | null {
    if (!this.credentials) return null
    return 'apiKey' in this.credentials ? this.credentials.apiKey : this.credentials.accessToken
  }

  /**
   * After a 401 with `used`: true when there is a newer token to try. Another request may already
   * have refreshed (then just retry); otherwise one refresh is started and shared.
   */
  private async renewAfter(used: string): Promise<boolean> {
    const current = this.bearer()
    if (current && current !== used) return true
    const credentials = this.credentials
    if (!credentials || !('accessToken' in credentials) || !credentials.refreshToken) return false
    this.refreshing ??= this.refresh(credentials.refreshToken).finally(() => {
      this.refreshing = null
    })
    return this.refreshing
  }

  private async refresh(refreshToken: string): Promise<boolean> {
    const response = await this.sendWithRetry('POST', '/api/refresh', { body: { refresh_token: refreshToken } }, null)
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined)
      // A refused refresh token means signing in again; a server failure keeps the session.
      if (response.status === 401) this.setCredentials(null)
      return false
    }
    const { access_token } = (await response.json()) as { access_token: string }
    this.setCredentials({ accessToken: access_token, refreshToken })
    return true
  }

  private async sendWithRetry(method: string, path: string, options: RequestOptions, bearer: string | null): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers }
    if (bearer) headers.authorization = `Bearer ${bearer}`
    if (options.body !== undefined) headers['content-type'] = 'application/json'
    const init: RequestInit = {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    }
    const retries = options.retry === false ? 0 : this.retryPolicy.retries
    for (let attempt = 0; ; attempt++) {
      let response: Response
      try {
        response = await this.fetchImpl(this.url(path, options.query), init)
      } catch (error) {
        if (options.signal?.aborted) throw error
        if (attempt >= retries) throw new NetworkError(`Cannot reach ${this.baseUrl}: ${describe(error)}`, error)
        await sleep(this.delay(attempt), options.signal)
        continue
      }
      if (!RETRY_STATUSES.has(response.status) || attempt >= retries) return response
      await response.body?.cancel().catch(() => undefined)
      await sleep(this.delay(attempt, response.headers.get('retry-after')), options.signal)
    }
  }

  /** Exponential backoff; a Retry-After in seconds is honoured up to the maximum delay. */
  private delay(attempt: number, retryAfter?: string | null): number {
    const { baseDelayMs, maxDelayMs } = this.retryPolicy
    const hinted = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) * 1000 : 0
    return Math.min(maxDelayMs, Math.max(hinted, baseDelayMs * 2 ** attempt))
  }
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error))
}
