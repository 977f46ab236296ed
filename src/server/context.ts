import type { Logger } from 'pino'
import type { Authenticated } from './auth/authenticate.ts'
import type { CredentialCache } from './auth/credential-cache.ts'
import type { Config } from './config.ts'
import type { Db } from './db/db.ts'
import type { EventBus } from './events/bus.ts'
import type { Resolver } from './outbound.ts'

/** Where the database stands: migrations pending, applied, or failed for good. */
export type DbState = 'starting' | 'ready' | 'failed'

/** What every handler and service may use; built once per process (or per test app). */
export interface AppContext {
  config: Config
  db: Db
  bus: EventBus
  /** Resolved credentials, forgotten whenever one changes (auth/credential-cache.ts). */
  credentials: CredentialCache<Authenticated>
  log: Logger
  dbState: DbState
  /** How outbound connections to chosen addresses resolve names (outbound.ts); the system's unless a test stands one in. */
  resolve?: Resolver
}
