// The databases tests run on, all cloned from the template that test/global-setup.ts migrated
// once for the whole run, so no test file pays for the migrations (or, on the embedded
// database, for creating a database from nothing, which takes seconds).
//   - TEST_DATABASE_URL set: each test worker works in a database of its own, cloned from the
//     template on first use and shared by the test files it runs one after another;
//     scratchPostgres() makes further ones for tests that need a database no other test
//     touches (process tests, global sweeps).
//   - otherwise: each testDb() is a new in-memory embedded database loaded from the template's
//     archive.
//   - either way, embeddedDataDir() is a folder holding a copy of the embedded template, for
//     server processes on the embedded database.
// Without the global set-up (a test run by another configuration) each falls back to what a new
// database needs: migrations, run by the server or the app as it starts.
import fs from 'node:fs'
import { inject } from 'vitest'
import type { Db } from '../src/server/db/db.ts'
import { openPglite } from '../src/server/db/pglite.ts'
import { openPostgres } from '../src/server/db/postgres.ts'
import { databaseUrl, type TestRun } from './global-setup.ts'
import { tempDir } from './server-process.ts'

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || null

const run: TestRun | undefined = inject('testRun')

let made = 0
/** A new PostgreSQL database name of this run: dropped at the end of the run whatever happens. */
function newName(): string {
  return `${run?.prefix ?? 'shopfloor_t'}_${process.pid}_${Date.now().toString(36)}_${++made}`
}

async function createDatabase(name: string, template: string | null): Promise<string> {
  const admin = openPostgres(TEST_DATABASE_URL!, undefined, 1)
  try {
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`)
  } finally {
    await admin.close()
  }
  return databaseUrl(TEST_DATABASE_URL!, name)
}

let workerDatabase: Promise<string> | null = null
/**
 * The PostgreSQL database of this test worker (every testDb() and testApp() of its files works in
 * it), or null without a server.
 */
export function workerDatabaseUrl(): Promise<string> | null {
  if (!TEST_DATABASE_URL) return null
  if (!run?.postgresTemplate) return Promise.resolve(TEST_DATABASE_URL)
  workerDatabase ??= createDatabase(newName(), run.postgresTemplate)
  return workerDatabase
}

let archive: Blob | null = null
/** A fresh database handle: the worker's PostgreSQL database, else a new in-memory one. */
export async function testDb(): Promise<Db> {
  const url = workerDatabaseUrl()
  if (url) return openPostgres(await url, undefined, 20)
  return embeddedDb()
}

/**
 * A new in-memory embedded database, migrated (a copy of the template), or with `empty` one
 * with nothing in it.
 */
export async function embeddedDb(options: { empty?: boolean } = {}): Promise<Db> {
  if (options.empty || !run) return openPglite(null)
  archive ??= new Blob([fs.readFileSync(run.pgliteArchive)])
  return openPglite(null, { from: archive })
}

/**
 * A database with nothing in it, for tests of the migrations themselves: a new PostgreSQL
 * database with TEST_DATABASE_URL, else a new in-memory embedded one. close() also drops it.
 */
export async function emptyDb(): Promise<Db> {
  const scratch = await scratchPostgres({ empty: true })
  if (!scratch) return embeddedDb({ empty: true })
  const db = openPostgres(scratch.url, undefined, 2)
  return {
    ...db,
    async close() {
      await db.close()
      await scratch.drop()
    },
  }
}

/**
 * A PostgreSQL database of its own for tests that need one, or null without a server: a clone
 * of the migrated template, or with `empty` a database with nothing in it (migration tests).
 */
export async function scratchPostgres(options: { empty?: boolean } = {}): Promise<{ url: string; drop(): Promise<void> } | null> {
  if (!TEST_DATABASE_URL) return null
  const name = newName()
  const url = await createDatabase(name, options.empty ? null : (run?.postgresTemplate ?? null))
  return {
    url,
    async drop() {
      const admin = openPostgres(TEST_DATABASE_URL!, undefined, 1)
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await admin.close()
      }
    },
  }
}

/**
 * A temporary folder for a server process's embedded database (DATA_DIR), holding a copy of
 * the migrated template; `fresh` leaves it empty, for tests of a first start.
 */
export function embeddedDataDir(options: { fresh?: boolean } = {}): string {
  const dir = tempDir('shopfloor-data-')
  if (!options.fresh && run) fs.cpSync(run.pgliteDir, dir, { recursive: true })
  return dir
}
