import type { Logger } from 'pino'
import type { Config } from '../config.ts'
import type { Db } from './db.ts'
import { openPglite } from './pglite.ts'
import { openPostgres } from './postgres.ts'

/** The database the configuration names: PostgreSQL for a DATABASE_URL, else embedded. */
export async function openDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>, log?: Logger): Promise<Db> {
  return config.databaseUrl ? openPostgres(config.databaseUrl, log) : openPglite(config.dataDir)
}
