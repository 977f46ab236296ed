// Runs once per `vitest run`, before any test file: migrates one template database, which each
// test file then clones instead of migrating a database of its own (test/databases.ts).
//   - TEST_DATABASE_URL set: a template database on that PostgreSQL server; files clone it with
//     CREATE DATABASE ... TEMPLATE.
//   - always: an embedded database folder, also saved as a data-folder archive; without a
//     server, testDb() loads the archive into memory; server processes on the embedded
//     database start on a copy of the folder.
// The embedded template is kept between runs (node_modules/.cache/shopfloor-tests), under a name
// made from what it is made with (the migrations, how it is opened, PGlite's version): making it
// takes about 4 s, before any test can start. Also compiles the executable's program if its sources changed
// (bin/compiled.js), and makes the run's temporary folder (where the web app is built for the
// tests that serve it). At the end every database and folder the run made is removed.
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import type { TestProject } from 'vitest/node'
import { compiledEntry } from '../bin/compiled.js'
import { migrate, readMigrations } from '../src/server/db/migrate.ts'
import { openPglite } from '../src/server/db/pglite.ts'
import { openPostgres } from '../src/server/db/postgres.ts'

export interface TestRun {
  /** The run's temporary folder, removed at the end. */
  root: string
  /** Every PostgreSQL database of the run starts with this; all are dropped at the end. */
  prefix: string
  /** The migrated template database on the TEST_DATABASE_URL server. */
  postgresTemplate: string | null
  /** The migrated embedded database: a data folder, and the same as an archive. */
  pgliteDir: string
  pgliteArchive: string
}

declare module 'vitest' {
  export interface ProvidedContext {
    testRun: TestRun
  }
}

export default async function setup(project: TestProject) {
  const server = process.env.TEST_DATABASE_URL || null
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'shopfloor-tests-'))
  // Every temporary file of the run goes under its folder, which the teardown removes: the test
  // workers and every process they start inherit TMPDIR. A worker ends without running its exit
  // handlers, and a process killed on purpose cannot clean up, so folders made elsewhere stayed
  // behind (about a hundred a run). Readable by the fault suite's PostgreSQL, another user.
  fs.chmodSync(root, 0o755)
  const tmp = path.join(root, 'tmp')
  fs.mkdirSync(tmp, { mode: 0o755 })
  fs.mkdirSync(sharedServersDir(root))
  process.env.TMPDIR = tmp
  const prefix = `shopfloor_t${process.pid}`

  const teardown = async () => {
    await stopSharedServers(root)
    if (server) {
      const admin = openPostgres(server, undefined, 1)
      try {
        const made = await admin.many<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`${prefix}%`])
        for (const { datname } of made) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`)
      } finally {
        await admin.close()
      }
    }
    fs.rmSync(root, { recursive: true, force: true })
  }

  try {
    const embedded = await pgliteTemplate(root)
    const run: TestRun = {
      root,
      prefix,
      postgresTemplate: server ? `${prefix}_template` : null,
      pgliteDir: embedded.dir,
      pgliteArchive: embedded.archive,
    }
    // After the embedded template, not beside it: the embedded database works on this process's
    // event loop and can hold it for seconds on a loaded machine, long enough for a PostgreSQL
    // connection attempt made meanwhile to time out.
    if (server) await postgresTemplate(server, run)
    // The executable's compiled program, made once here rather than by the first processes the
    // test files start at the same moment (bin/compiled.js).
    await compiledEntry(path.resolve(import.meta.dirname, '..'), 'src/cli/main.ts')
    project.provide('testRun', run)
  } catch (error) {
    // A set-up that fails (sources that do not compile, say) gets no teardown call from vitest:
    // clean up what it made before saying why.
    await teardown()
    throw error
  }
  return teardown
}

/** The folder of the run where each worker's shared server leaves its process id (test/shared-server.ts). */
export function sharedServersDir(root: string): string {
  return path.join(root, 'servers')
}

/** Stops the workers' shared servers: SIGTERM, then SIGKILL for any still running after 5 s. */
async function stopSharedServers(root: string): Promise<void> {
  const pids = fs.readdirSync(sharedServersDir(root)).map(Number)
  const signal = (pid: number, name: NodeJS.Signals | 0) => {
    try {
      process.kill(pid, name)
      return true
    } catch {
      return false // already gone
    }
  }
  for (const pid of pids) signal(pid, 'SIGTERM')
  const deadline = Date.now() + 5_000
  while (pids.some((pid) => signal(pid, 0)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
  for (const pid of pids) signal(pid, 'SIGKILL')
}

/** Creates and migrates the PostgreSQL template. */
async function postgresTemplate(server: string, run: TestRun): Promise<void> {
  const admin = openPostgres(server, undefined, 1)
  try {
    await admin.query(`CREATE DATABASE ${run.postgresTemplate}`)
  } finally {
    await admin.close()
  }
  const db = openPostgres(databaseUrl(server, run.postgresTemplate!), undefined, 1)
  try {
    await migrate(db)
  } finally {
    await db.close() // a template must have no connections when it is cloned
  }
}

/**
 * The migrated embedded template, as a data folder (copied for server processes) and as an
 * archive of it (loaded into memory by testDb()); made on PostgreSQL runs too, as server
 * processes on the embedded database (the process tests, the operator commands) start from it.
 * Taken from the cache when a run made it from the same migrations and PGlite version; else made
 * in the run's folder and then added to the cache (renamed into place whole, so a run beside
 * this one sees all of it or none).
 */
async function pgliteTemplate(root: string): Promise<{ dir: string; archive: string }> {
  const cache = path.resolve(import.meta.dirname, '..', 'node_modules', '.cache', 'shopfloor-tests')
  const made = path.join(cache, `pglite-${templateKey()}`)
  const inCache = { dir: path.join(made, 'data'), archive: path.join(made, 'data.tar') }
  if (fs.existsSync(inCache.archive)) return inCache

  const work = path.join(root, 'pglite-template')
  const template = { dir: path.join(work, 'data'), archive: path.join(work, 'data.tar') }
  const db = await openPglite(template.dir)
  try {
    await migrate(db)
  } finally {
    await db.close()
  }
  const raw = new PGlite({ dataDir: template.dir })
  try {
    await raw.waitReady // dumpDataDir before it never settles
    fs.writeFileSync(template.archive, Buffer.from(await (await raw.dumpDataDir('none')).arrayBuffer()))
  } finally {
    await raw.close()
  }
  let staging: string | null = null
  try {
    fs.mkdirSync(cache, { recursive: true })
    staging = fs.mkdtempSync(path.join(cache, 'making-'))
    fs.cpSync(work, staging, { recursive: true })
    fs.renameSync(staging, made)
    staging = null
    for (const old of fs.readdirSync(cache)) {
      if (old.startsWith('pglite-') && old !== path.basename(made)) fs.rmSync(path.join(cache, old), { recursive: true, force: true })
    }
    return inCache
  } catch {
    return template // no cache this time (a read-only tree, or another run put it there first)
  } finally {
    if (staging) fs.rmSync(staging, { recursive: true, force: true })
  }
}

/** What the embedded template is made from: every migration, how it is opened, PGlite's version. */
function templateKey(): string {
  const read = (file: string) => fs.readFileSync(path.resolve(import.meta.dirname, '..', file), 'utf8')
  const pglite = JSON.parse(read('node_modules/@electric-sql/pglite/package.json')).version
  const text = JSON.stringify([pglite, read('src/server/db/pglite.ts'), readMigrations().map((m) => [m.name, m.sql])])
  return crypto.createHash('sha256').update(text).digest('hex').slice(0, 16)
}

/** The URL of database `name` on the server of `serverUrl`. */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
}
