import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite, type Transaction } from '@electric-sql/pglite'
import { type Db, queryable } from './db.ts'
import { Statements } from './pglite-statements.ts'
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
 * process to 361 MB RSS with it and 244 MB with 32 MB. PostgreSQL zeroes the buffers at start,
 * so each megabyte is resident from the first moment: 16 MB took a server another 25 MB lower
 * (2,048 pages; a page not in them is read from the operating system's cache). Durability settings stay PGlite's (synchronous commit on,
 * fsync off): a commit reaches the operating system before it is acknowledged, so a kill -9
 * of the process keeps every acknowledged write (test/foundation/process.test.ts).
 */
const SETTINGS = ['shared_buffers=16MB']

export async function openPglite(dataDir: string | null, options: { from?: Blob } = {}): Promise<Db> {
  let release = () => {}
  if (dataDir) {
    fs.mkdirSync(dataDir, { recursive: true })
    release = lockFolder(dataDir)
  }
  let db: PGlite
  try {
    if (dataDir && !options.from && !fs.existsSync(path.join(dataDir, 'PG_VERSION'))) await createFolder(path.resolve(dataDir))
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
  // Statements with parameters run prepared (pglite-statements.ts); others (a few fixed texts
  // and set-up) through query(), which also accepts what has no parameters to bind.
  const statements = new Statements(db)
  const rows = (result: { rows: any[]; affectedRows?: number }) => ({ rows: result.rows, rowCount: result.affectedRows ?? result.rows.length })
  // Alone, a statement takes the same two locks as query(): transaction() holds the first for
  // its whole length. Its write reaches the files before it is acknowledged, as with query().
  const runAlone = async (sql: string, params?: unknown[]) => {
    if (!params?.length) return rows(await db.query(sql, params as any[]))
    await db._checkReady()
    return rows(
      await db._runExclusiveTransaction(() =>
        db._runExclusiveQuery(async () => {
          const result = await statements.run(sql, params, false)
          await db.syncToFs()
          return result
        }),
      ),
    )
  }
  // Within transaction()'s callback only the query lock, as its tx.query() takes; COMMIT syncs.
  const runIn = (tx: Transaction) => async (sql: string, params?: unknown[]) => {
    if (!params?.length) return rows(await tx.query(sql, params as any[]))
    if (tx.closed) throw new Error('Transaction is closed')
    return rows(await db._runExclusiveQuery(() => statements.run(sql, params, true)))
  }

  return {
    kind: 'pglite',
    ...queryable(runAlone, exec(db)),
    transaction: (fn) => db.transaction((tx) => fn(queryable(runIn(tx), exec(tx)))),
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

/**
 * Creates a new data folder (PGlite's initdb) in a short-lived child process. Done in this
 * process, it took the memory to about 800 MB, and most of it stayed taken for the life of the
 * process: a server started on a new folder held 410 MB idle against 320 MB when started on
 * that folder again (docs/benchmarks.md, workload 7). The child is plain JavaScript run by
 * this same Node.js, loading the same PGlite; the folder lock is already ours.
 */
const HERE = path.dirname(fileURLToPath(import.meta.url))

async function createFolder(dataDir: string): Promise<void> {
  const code = `const { PGlite } = await import('@electric-sql/pglite')
    const db = new PGlite({ dataDir: ${JSON.stringify(dataDir)}, postgresqlconf: ${JSON.stringify(SETTINGS)} })
    await db.waitReady
    await db.close()`
  await new Promise<void>((resolve, reject) => {
    // Run from this folder, so that the package resolves as it does for this file.
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: HERE, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr!.on('data', (d) => (stderr = (stderr + d).slice(-4000)))
    child.once('error', reject)
    child.once('exit', (status) => (status === 0 ? resolve() : reject(new Error(`could not create the embedded database in ${dataDir}: ${stderr.trim() || `exit ${status}`}`))))
  })
}

/**
 * Takes `<dir>/shopfloor.lock`, refusing when a live process holds it. The lock names the holder
 * by its process id and start time, so a dead holder never blocks a restart: not when it is a
 * zombie not yet reaped (kill -9 of a server whose parent has not waited for it: `kill(pid, 0)`
 * still succeeds), and not when its id was given to another process since.
 */
export function lockFolder(dir: string): () => void {
  const file = path.join(dir, 'shopfloor.lock')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid} ${processStart(process.pid) ?? ''}`.trim(), { flag: 'wx' })
      return () => fs.rmSync(file, { force: true })
    } catch (err: any) {
      if (err.code !== 'EEXIST') throw err
      const [pid, started] = fs.readFileSync(file, 'utf8').trim().split(/\s+/)
      const holder = Number(pid)
      if (holder && holder !== process.pid && processAlive(holder, started ?? null)) {
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

/** The fields of /proc/<pid>/stat after the parenthesised name (Linux), or null. */
function procStat(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return null
  }
}

/** When the process started, in clock ticks since boot (field 22 of /proc/<pid>/stat), or null. */
function processStart(pid: number): string | null {
  return procStat(pid)?.[19] ?? null
}

/** True while `pid` runs and, when the lock recorded it, is the process that started then. */
function processAlive(pid: number, started: string | null): boolean {
  if (fs.existsSync('/proc/self/stat')) {
    const fields = procStat(pid)
    if (!fields) return false
    // Z: exited, not yet reaped; X: dead.
    if (fields[0] === 'Z' || fields[0] === 'X') return false
    return started === null || fields[19] === started
  }
  try {
    process.kill(pid, 0)
    return true
  } catch (err: any) {
    return err.code === 'EPERM'
  }
}
