// `shopfloor scheduler` as its own process. On PostgreSQL (a scratch database) it is given a
// routine and must fire it; on the embedded database, which only one process may open, it
// prepares the database itself and must start and stop cleanly.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import { expect, it } from 'vitest'
import { migrate } from '../../src/server/db/migrate.ts'
import { openPostgres } from '../../src/server/db/postgres.ts'
import { embeddedDataDir, scratchPostgres } from '../helpers.ts'
import { BIN, ROOT } from '../server-process.ts'
import { makeAgent, makeCompany, makeRoutine, waitFor } from './setup.ts'

it('runs on its own, fires routines, and stops cleanly on SIGTERM', async () => {
  const scratch = await scratchPostgres()
  const dataDir = embeddedDataDir()
  const db = scratch ? openPostgres(scratch.url, undefined, 2) : null
  try {
    let routineId: string | null = null
    if (db) {
      await migrate(db)
      const companyId = await makeCompany(db)
      routineId = await makeRoutine(db, companyId, await makeAgent(db, companyId), { cron: '* * * * * *' })
    }
    const child = spawn(process.execPath, [BIN, 'scheduler', '--refresh-seconds', '60'], {
      cwd: ROOT,
      env: {
        ...process.env, ...(scratch ? { DATABASE_URL: scratch.url } : { DATA_DIR: dataDir, DATABASE_URL: '' }),
        ENVIRONMENT: 'test', LOG_LEVEL: 'info', EVENTS_BACKEND: 'memory',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    await waitFor(async () => output.includes(db ? 'scheduled slot fired' : 'scheduler started'), 60_000)
    if (db) expect((await db.many('SELECT id FROM tasks WHERE routine_id = $1', [routineId])).length).toBeGreaterThanOrEqual(1)
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(output).toContain('scheduler stopping')
    // Its events cannot reach an API process on the in-process backend: it says so.
    expect(output).toContain('EVENTS_BACKEND is memory: live events of this scheduler reach no API instance')
  } finally {
    await db?.close()
    await scratch?.drop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
})
