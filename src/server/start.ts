import type { Logger } from 'pino'
import { CredentialCache } from './auth/credential-cache.ts'
import type { Config } from './config.ts'
import type { AppContext } from './context.ts'
import type { Db } from './db/db.ts'
import { keptSigningKey } from './auth/signing-key.ts'
import { type Migration, migrate } from './db/migrate.ts'
import { openDatabase } from './db/open.ts'
import { sharesSessions, TRANSACTION_POOLING_ADVICE } from './db/pooler.ts'
import { createBus } from './events/create.ts'

/**
 * Opens the database and the event bus and starts the migrations. Resolves once migrations
 * have run (ready) or failed for good (dbState 'failed': /health answers 503
 * "initialization failed" and the process stays up). A database that cannot be reached is
 * retried every 2 seconds; a migration that fails is not retried.
 */
export async function createContext(config: Config, log: Logger, options: { db?: Db; waitForMigrations?: boolean; migrations?: Migration[] } = {}): Promise<AppContext> {
  const db = options.db ?? (await openDatabase(config, log))
  const ctx: AppContext = { config, db, bus: await createBus(config, log), credentials: new CredentialCache(db), log, dbState: 'starting' }
  const migrating = runMigrations(ctx, options.migrations)
  if (options.waitForMigrations !== false) await migrating
  return ctx
}

/**
 * A statement the server rejected (it carries a SQLSTATE and a severity) is a failed migration;
 * anything else (refused, reset, timed out, server starting up or shutting down) means the
 * server could not be reached and is worth another try.
 */
function isSqlFailure(err: any): boolean {
  const code = String(err?.code ?? '')
  return typeof err?.severity === 'string' && code !== '57P03' && !code.startsWith('08') && !code.startsWith('57P')
}

async function runMigrations(ctx: AppContext, migrations?: Migration[]): Promise<void> {
  for (;;) {
    try {
      // Checked before the migrations, whose advisory lock a transaction pooler would break.
      if (ctx.db.kind === 'postgres' && ctx.config.databaseUrl && (await sharesSessions(ctx.config.databaseUrl))) {
        ctx.dbState = 'failed'
        ctx.log.error(TRANSACTION_POOLING_ADVICE)
        return
      }
      const applied = await migrate(ctx.db, migrations)
      if (applied.length) ctx.log.info({ applied }, 'database migrations applied')
      // Before the first request is served: every token is signed and checked with this key.
      if (ctx.config.jwtSecretKept) ctx.config.jwtSecret = await keptSigningKey(ctx.db)
      ctx.dbState = 'ready'
      return
    } catch (err: any) {
      if (isSqlFailure(err)) {
        ctx.dbState = 'failed'
        ctx.log.error({ err }, 'database initialization failed; /health reports it until the process is replaced')
        return
      }
      ctx.log.warn({ err: err.message }, 'database unreachable; retrying in 2 s')
      await new Promise((r) => setTimeout(r, 2000))
    }
  }
}
