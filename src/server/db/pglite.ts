import fs from 'node:fs'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { type Db, queryable } from './db.ts'
import { parsers } from './types.ts'

/**
 * The embedded database. `dataDir` null keeps it in memory (tests). PGlite is a single
 * session, so its own transaction() serialises transactions; a folder lock stops a second
 * process from opening the same files, which would corrupt them. `from` starts the database
 * as a copy of a data-folder archive (PGlite's dumpDataDir) instead of creating it, which takes
 * seconds: the tests load a migrated template this way.
 */
/**
 * PostgreSQL settings of the embedded database. PostgreSQL's default shared_buffers (128 MB)
 * is taken from the process's memory at start, used or not: reopening a data folder took the
 * process to 361 MB RSS with it and 244 MB with 32 MB, which still holds the working set of
 * the companies one process serves. Durability settings stay PGlite's (synchronous commit on,
 * fsync off): a commit reaches the operating system before it is acknowledged, so a kill -9
 * of the process keeps every acknowledged write (test/foundation/process.test.ts).
 */
const SETTINGS = ['shared_buffers=32MB']

export async function openPglite(dataDir: string | null, options: { from?: Blob } = {}): Promise<Db> {
  let release = () => {}
  if (dataDir) {
    fs.mkdirSync(dataDir, { recursive: true })
    release = lockFolder(dataDir)
  }
  let db: PGlite
  try {
    db = new PGlite({ dataDir: dataDir ? path.resolve(dataDir) : undefined, loadDataDir: options.from, parsers, postgresqlconf: SETTINGS })
    await db.waitReady
    await db.exec("SET TIME ZONE 'UTC'")
  } catch (err) {
    release()
    throw err
  }

  const exec = (target: { exec: PGlite['exec'] }) => async (sql: string) => {
    await target.exec(sql)
  }
  const run = (target: { query: PGlite['query'] }) =>
    async (sql: string, params?: unknown[]) => {
      const result = await target.query(sql, params as any[])
      return { rows: result.rows as any[], rowCount: result.affectedRows ?? result.rows.length }
    }

  return {
    kind: 'pglite',
    ...queryable(run(db), exec(db)),
    transaction: (fn) => db.transaction((tx) => fn(queryable(run(tx as any), exec(tx as any)))),
    listen(channel, onSignal) {
      // One session in this process: nothing is ever missed once LISTEN has run.
      let live = false
      db.listen(channel, () => onSignal()).then(
        () => {
          live = true
          onSignal()
        },
        () => {}, // closed before it listened: stays not live
      )
      return {
        get live() {
          return live
        },
      }
    },
    async close() {
      await db.close()
      release()
    },
  }
}

/** Takes `<dir>/shopfloor.lock`, refusing when a live process holds it. */
function lockFolder(dir: string): () => void {
  const file = path.join(dir, 'shopfloor.lock')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' })
      return () => fs.rmSync(file, { force: true })
    } catch (err: any) {
      if (err.code !== 'EEXIST') throw err
      const holder = Number(fs.readFileSync(file, 'utf8').trim())
      if (holder && holder !== process.pid && processAlive(holder)) {
        throw new Error(
          `The embedded database in ${path.resolve(dir)} is in use by process ${holder}. ` +
            'Stop that process, or give this one another DATA_DIR (or a DATABASE_URL).',
        )
      }
      fs.rmSync(file, { force: true }) // left behind by a process that died
    }
  }
  throw new Error(`Could not lock ${file}`)
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err: any) {
    return err.code === 'EPERM'
  }
}
