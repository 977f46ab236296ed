// kill -9 of the API during a write load, then a restart on the same database while the load
// goes on: every write that was acknowledged is there afterwards, and nothing answers 5xx
// (other than a 503 in the envelope while starting), on PostgreSQL and on the embedded database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, startServer, tempDir } from '../server-process.ts'
import { hasPostgresBinaries, type OwnPostgres, ownPostgres } from './postgres-cluster.ts'
import { http, makeOwner, sleep, taskLoad } from './support.ts'

async function killDuringLoad(env: Record<string, string>) {
  const port = await freePort()
  const serverEnv = { ...env, PORT: String(port), ENVIRONMENT: 'test' }
  let server = await startServer(serverEnv, { timeoutMs: 120_000 })
  const url = server.url
  const owner = await makeOwner(url)
  const load = taskLoad(() => url, owner)
  await sleep(2_000)
  await server.stop('SIGKILL')
  server = await startServer(serverEnv, { timeoutMs: 120_000 })
  await sleep(3_000)
  const result = await load.stop()
  try {
    expect(result.unexpected).toEqual([])
    expect(result.acknowledged.length).toBeGreaterThan(10)
    // Every acknowledged create is there.
    const missing: string[] = []
    const queue = [...result.acknowledged]
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let id = queue.pop(); id; id = queue.pop()) {
          const r = await http(url, 'GET', `${owner.base}/tasks/${id}`, owner.token)
          if (r.status !== 200) missing.push(`${id}: ${r.status}`)
        }
      }),
    )
    expect(missing).toEqual([])
    expect(new Set(result.acknowledged).size).toBe(result.acknowledged.length)
  } finally {
    await server.stop()
  }
  return result
}

describe.runIf(hasPostgresBinaries())('kill -9 under load on PostgreSQL', () => {
  let pg: OwnPostgres
  beforeAll(async () => {
    pg = await ownPostgres()
  })
  afterAll(async () => pg?.destroy())

  it('keeps every acknowledged write and answers no 5xx after the restart', async () => {
    const result = await killDuringLoad({ DATABASE_URL: pg.url })
    expect(result.dropped).toBeGreaterThan(0) // the kill did land during the load
  })
})

describe('kill -9 under load on the embedded database', () => {
  it('keeps every acknowledged write and answers no 5xx after the restart', async () => {
    const result = await killDuringLoad({ DATA_DIR: tempDir('shopfloor-fault-data-') })
    expect(result.dropped).toBeGreaterThan(0)
  })
})
