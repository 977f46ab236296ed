import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Db } from './db.ts'

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations')
// Any constant works; all instances must agree on it.
const MIGRATION_LOCK_KEY = 7_424_310_001

export interface Migration {
  version: number
  name: string
  sql: string
}

/** Numbered files `NNN_name.sql`, in order, with their `\ir` includes expanded. */
export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d+_.+\.sql$/.test(f))
    .map((f) => ({ version: Number(f.split('_')[0]), name: f, sql: readSql(path.join(dir, f)) }))
    .sort((a, b) => a.version - b.version)
}

/**
 * A migration's text with each line `\ir <file>` replaced by that file, read relative to the
 * including file: psql's meta-command, so a migration also runs as is with `psql -f`. Functions
 * live in files of their own (db/functions/) that migrations include this way.
 */
function readSql(file: string, seen: string[] = []): string {
  if (seen.includes(file)) throw new Error(`${file} includes itself (through ${seen.map((f) => path.basename(f)).join(' -> ')})`)
  const text = fs.readFileSync(file, 'utf8')
  return text.replace(/^\\ir\s+(\S+)[ \t]*$/gm, (_, included: string) =>
    readSql(path.resolve(path.dirname(file), included), [...seen, file]),
  )
}

/**
 * Applies every migration not applied yet, each in its own transaction, while holding a
 * transaction-scoped advisory lock: instances that start together queue on the lock and then
 * find the work done, so each migration runs exactly once. Returns the versions applied.
 */
export async function migrate(db: Db, migrations = readMigrations()): Promise<number[]> {
  const applied: number[] = []
  for (const migration of migrations) {
    const ran = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY])
      await tx.query(
        `CREATE TABLE IF NOT EXISTS schema_migrations (
           version integer PRIMARY KEY,
           name text NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now())`,
      )
      const done = await tx.one('SELECT 1 FROM schema_migrations WHERE version = $1', [migration.version])
      if (done) return false
      await tx.exec(migration.sql)
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name])
      return true
    })
    if (ran) applied.push(migration.version)
  }
  return applied
}
