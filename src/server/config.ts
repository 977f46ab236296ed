import crypto from 'node:crypto'

// Every environment variable the service reads is read here, once, and validated.
// The rest of the code receives a typed Config and never looks at process.env itself.

export interface SmtpConfig {
  host: string | null
  port: number
  secure: boolean
  user: string | null
  password: string | null
  from: string | null
}

export interface Config {
  host: string
  port: number
  /** postgres:// URL; null selects the embedded PGlite database in dataDir. */
  databaseUrl: string | null
  dataDir: string
  /** Value of ENVIRONMENT (default `development`), reported by / and /health. */
  environment: string
  /** Exactly `production`: hides exception text, keeps secrets and email bodies out of logs. */
  production: boolean
  /**
   * bcrypt's cost for new password hashes: 12, or bcrypt's minimum (4) when ENVIRONMENT is
   * exactly `test`, as test suites commonly do: every sign-up and sign-in of a test server
   * otherwise spends a quarter of a second of a core hashing (passwords.ts).
   */
  passwordCost: number
  debug: boolean
  /**
   * JWT_SECRET_KEY. Without it (development-like environments only) the key kept in the
   * database (auth/signing-key.ts) replaces this before the first request is served; until then
   * it is random to this process, never a constant.
   */
  jwtSecret: string
  /** True when JWT_SECRET_KEY was not set and the database's kept key is used. */
  jwtSecretKept: boolean
  allowedOrigins: string[] | null
  allowedHosts: string[] | null
  webAppUrl: string
  idpClientId: string | null
  idpJwksUrl: string
  idpIssuers: string[]
  runLeaseSeconds: number
  eventsBackend: 'memory' | 'redis'
  redisUrl: string
  smtp: SmtpConfig
  rateLimitHeaders: boolean
  scheduler: boolean
  /** Seconds without an event before the stream sends `: heartbeat` (15 by the spec). */
  sseHeartbeatSeconds: number
  /** TRUST_PROXY: addresses or CIDRs of proxies whose X-Forwarded-For names the client; null trusts none. */
  trustProxy: string[] | null
  /** REQUEST_HEADERS_TIMEOUT_SECONDS: a request whose headers take longer is closed (default 10). */
  requestHeadersTimeoutSeconds: number
  /** REQUEST_BODY_TIMEOUT_SECONDS: a request, body included, that takes longer to arrive is closed (default 60). */
  requestBodyTimeoutSeconds: number
  /** SSE_MAX_STREAMS_PER_CREDENTIAL: live event streams one credential may hold open (default 100). */
  sseMaxStreamsPerCredential: number
  /** SSE_MAX_STREAMS: live event streams one process holds open at most (default 10,000). */
  sseMaxStreams: number
  /** How often the scheduler fails stale runs. */
  staleSweepSeconds: number
  logLevel: string
  /** METRICS_TOKEN: the bearer /metrics requires; null leaves /metrics public outside production. */
  metricsToken: string | null
  /** METRICS_PUBLIC=true: /metrics answers without a token in production too. */
  metricsPublic: boolean
  /** WEBHOOKS_ALLOW_PRIVATE=true: webhook targets may be loopback or private addresses. */
  webhooksAllowPrivate: boolean
  /** ALLOW_LOCAL_REPOSITORIES=true: projects may name file:// repositories (runners need --allow-local-repositories too). */
  allowLocalRepositories: boolean
  /** TRANSCRIPT_RETENTION_DAYS: transcripts of runs finished longer ago are trimmed; null keeps them. */
  transcriptRetentionDays: number | null
  /** Folder of the built web app to serve (WEB_DIST_DIR); null: web/dist of this checkout. */
  webDistDir: string | null
}

export class ConfigError extends Error {}

// bcrypt's cost everywhere but in tests, where bcrypt's minimum keeps sign-ups cheap (Config.passwordCost).
const BCRYPT_COST = 12
const TEST_BCRYPT_COST = 4

const DEV_ENVIRONMENTS = new Set(['development', 'dev', 'local', 'test'])

type Env = Record<string, string | undefined>

function text(env: Env, name: string): string | null {
  const value = env[name]?.trim()
  return value ? value : null
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name)
  if (raw === null) return fallback
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got "${raw}"`)
  const value = Number(raw)
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`)
  return value
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = text(env, name)
  if (raw === null) return fallback
  return ['true', '1', 'yes', 'on'].includes(raw.toLowerCase())
}

function list(env: Env, name: string): string[] | null {
  const raw = text(env, name)
  if (raw === null) return null
  const items = raw.split(',').map((s) => s.trim()).filter(Boolean)
  return items.length ? items : null
}

/** True when a missing JWT_SECRET_KEY may fall back to a key kept in the database. */
export function isDevelopmentLike(env: Env): boolean {
  const value = (text(env, 'APP_ENV') ?? text(env, 'ENVIRONMENT') ?? 'development').toLowerCase()
  return DEV_ENVIRONMENTS.has(value)
}

export function loadConfig(env: Env = process.env): Config {
  const environment = text(env, 'ENVIRONMENT') ?? 'development'
  const host = text(env, 'HOST') ?? '127.0.0.1'
  const port = integer(env, 'PORT', 8000, 0, 65535)

  const databaseUrl = text(env, 'DATABASE_URL')
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL (leave it unset for the embedded database)')
  }

  // SPEC.md's fixed development secret is deliberately not used: anyone who read the source could
  // sign a token for any user of a server started without JWT_SECRET_KEY.
  const givenSecret = text(env, 'JWT_SECRET_KEY')
  if (!givenSecret && !isDevelopmentLike(env)) {
    throw new ConfigError('JWT_SECRET_KEY is required when APP_ENV/ENVIRONMENT is not a development environment')
  }
  const jwtSecret = givenSecret ?? crypto.randomBytes(32).toString('base64url')

  const allowedOrigins = list(env, 'ALLOWED_ORIGINS')
  const firstHttpOrigin = allowedOrigins?.find((o) => /^https?:\/\//.test(o)) ?? null
  const ownAddress = `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`
  const webAppUrl = (text(env, 'WEB_APP_URL') ?? firstHttpOrigin ?? ownAddress).replace(/\/+$/, '')

  const smtpPort = integer(env, 'SMTP_PORT', 587, 1, 65535)

  return {
    host,
    port,
    databaseUrl,
    dataDir: text(env, 'DATA_DIR') ?? './data',
    environment,
    production: env.ENVIRONMENT === 'production',
    passwordCost: environment.trim().toLowerCase() === 'test' ? TEST_BCRYPT_COST : BCRYPT_COST,
    debug: text(env, 'DEBUG')?.toLowerCase() === 'true',
    jwtSecret,
    jwtSecretKept: givenSecret === null,
    allowedOrigins,
    allowedHosts: list(env, 'ALLOWED_HOSTS'),
    webAppUrl,
    idpClientId: text(env, 'IDP_OAUTH_CLIENT_ID'),
    idpJwksUrl: text(env, 'IDP_JWKS_URL') ?? 'https://www.googleapis.com/oauth2/v3/certs',
    idpIssuers: list(env, 'IDP_ISSUER') ?? ['https://accounts.google.com', 'accounts.google.com'],
    runLeaseSeconds: integer(env, 'RUN_LEASE_SECONDS', 300, 1, 86400 * 7),
    eventsBackend: text(env, 'EVENTS_BACKEND') === 'redis' ? 'redis' : 'memory',
    redisUrl: text(env, 'REDIS_URL') ?? 'redis://localhost:6379/0',
    smtp: {
      host: text(env, 'SMTP_HOST'),
      port: smtpPort,
      secure: bool(env, 'SMTP_SECURE', false),
      user: text(env, 'SMTP_USER'),
      password: text(env, 'SMTP_PASSWORD'),
      from: text(env, 'MAIL_FROM'),
    },
    rateLimitHeaders: text(env, 'RATELIMIT_HEADERS_ENABLED')?.toLowerCase() === 'true',
    scheduler: text(env, 'SCHEDULER')?.toLowerCase() !== 'off',
    sseHeartbeatSeconds: integer(env, 'SSE_HEARTBEAT_SECONDS', 15, 1, 3600),
    staleSweepSeconds: integer(env, 'STALE_SWEEP_SECONDS', 60, 1, 86400),
    trustProxy: list(env, 'TRUST_PROXY'),
    requestHeadersTimeoutSeconds: integer(env, 'REQUEST_HEADERS_TIMEOUT_SECONDS', 10, 1, 3600),
    requestBodyTimeoutSeconds: integer(env, 'REQUEST_BODY_TIMEOUT_SECONDS', 60, 1, 86400),
    sseMaxStreamsPerCredential: integer(env, 'SSE_MAX_STREAMS_PER_CREDENTIAL', 100, 1, 1_000_000),
    sseMaxStreams: integer(env, 'SSE_MAX_STREAMS', 10_000, 1, 1_000_000),
    logLevel: text(env, 'LOG_LEVEL') ?? 'info',
    metricsToken: text(env, 'METRICS_TOKEN'),
    metricsPublic: bool(env, 'METRICS_PUBLIC', false),
    webhooksAllowPrivate: bool(env, 'WEBHOOKS_ALLOW_PRIVATE', false),
    allowLocalRepositories: bool(env, 'ALLOW_LOCAL_REPOSITORIES', false),
    transcriptRetentionDays: text(env, 'TRANSCRIPT_RETENTION_DAYS') === null ? null : integer(env, 'TRANSCRIPT_RETENTION_DAYS', 0, 1, 36500),
    webDistDir: text(env, 'WEB_DIST_DIR'),
  }
}
