// PostgreSQL stopped and started under a running API process: the process stays up, /health says
// `database: unreachable`, every other route answers at once with 503 in the envelope, and full
// service (credential listener included) returns within seconds of the database, with no restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ServerProcess, startServer } from '../server-process.ts'
import { hasPostgresBinaries, type OwnPostgres, ownPostgres } from './postgres-cluster.ts'
import { http, inEnvelope, makeOwner, sleep, taskLoad, waitFor } from './support.ts'

describe.runIf(hasPostgresBinaries())('PostgreSQL stopped and started', () => {
  let pg: OwnPostgres
  let server: ServerProcess
  beforeAll(async () => {
    pg = await ownPostgres()
    server = await startServer({ DATABASE_URL: pg.url, ENVIRONMENT: 'test', SCHEDULER: 'on' }, { timeoutMs: 120_000 })
  })
  afterAll(async () => {
    await server?.stop()
    await pg?.destroy()
  })

  it('keeps the API up and answering, then serves again by itself', async () => {
    const owner = await makeOwner(server.url)
    const load = taskLoad(() => server.url, owner, 4)
    await sleep(1_000)
    await pg.stop()
    try {
      // While the database is down: no hang, no dropped connection, the envelope everywhere.
      for (const [method, path, body] of [
        ['GET', '/api/me', undefined],
        ['GET', `${owner.base}/tasks`, undefined],
        ['POST', `${owner.base}/tasks`, { title: 'while down' }],
        ['POST', '/api/login', { email: 'nobody@example.test', password: 'password123' }],
      ] as const) {
        const started = Date.now()
        const r = await http(server.url, method, path, owner.token, body)
        expect({ path, status: r.status, envelope: inEnvelope(r.body) }).toEqual({ path, status: 503, envelope: true })
        expect(r.body.error.code).toBe('SERVICE_UNAVAILABLE')
        expect(Date.now() - started).toBeLessThan(3_000)
      }
      const health = await http(server.url, 'GET', '/health')
      expect(health.status).toBe(503)
      expect(health.body).toMatchObject({ status: 'unhealthy', database: 'unreachable' })
      await sleep(2_000)
      expect(server.child.exitCode).toBeNull()
    } finally {
      await pg.start()
    }
    const back = Date.now()
    await waitFor(async () => (await http(server.url, 'GET', '/health')).status === 200, 'healthy again', 15_000)
    await waitFor(async () => (await http(server.url, 'GET', '/api/me', owner.token)).status === 200, 'the API again', 15_000)
    expect(Date.now() - back).toBeLessThan(15_000)
    await sleep(1_000)
    const result = await load.stop()
    expect(result.unexpected).toEqual([])
    expect(result.unavailable).toBeGreaterThan(0)
    // Writes after the return are acknowledged and there.
    const after = await http(server.url, 'POST', `${owner.base}/tasks`, owner.token, { title: 'after the return' })
    expect(after.status).toBe(201)
    expect((await http(server.url, 'GET', `${owner.base}/tasks/${after.body.id}`, owner.token)).status).toBe(200)
    expect(server.child.exitCode).toBeNull()
    expect(server.output()).not.toMatch(/Connection terminated unexpectedly\n\s+at/)
  })
})
