// The database going away under a running API: the process stays up, every route answers at
// once in the envelope, and service returns by itself. (The fault suite, test/faults/, does the
// same by stopping and starting a real PostgreSQL server.)
import { describe, expect, it } from 'vitest'
import { buildApp } from '../../src/api/app.ts'
import { openPostgres } from '../../src/server/db/postgres.ts'
import { createLogger } from '../../src/server/logger.ts'
import { createContext } from '../../src/server/start.ts'
import { call, createUser, workerDatabaseUrl, TEST_DATABASE_URL, testConfig } from '../helpers.ts'
import { pgProxy } from '../pg-proxy.ts'


describe.runIf(TEST_DATABASE_URL)('the database going away', () => {
  it('a connection lost inside a transaction fails that transaction, not the process; routes answer 503 at once; service returns', async () => {
    const target = new URL((await workerDatabaseUrl())!)
    const proxy = pgProxy(target)
    const port = await proxy.start()
    const url = new URL(target)
    url.hostname = '127.0.0.1'
    url.port = String(port)
    const config = testConfig({ databaseUrl: url.toString() })
    const log = createLogger(config)
    const db = openPostgres(url.toString(), log)
    const ctx = await createContext(config, log, { db })
    const app = await buildApp(ctx)
    const user = await createUser(ctx)
    try {
      expect((await call(app, 'GET', '/api/me', { token: user.token })).status).toBe(200)

      // A transaction holds a connection, idle between two statements, when the server goes.
      let cut!: () => void
      const cutDone = new Promise<void>((resolve) => (cut = resolve))
      const inFlight = db.transaction(async (tx) => {
        await tx.query('SELECT 1')
        cut()
        await new Promise((r) => setTimeout(r, 300)) // the connection breaks meanwhile
        await tx.query('SELECT 1')
      })
      await cutDone
      await proxy.stop()
      await expect(inFlight).rejects.toThrow()

      for (const [method, path, body] of [
        ['GET', '/api/me', undefined],
        ['POST', '/api/companies', { name: 'During the outage' }],
        ['GET', '/api/companies', undefined],
      ] as const) {
        const started = Date.now()
        const r = await call(app, method, path, { token: user.token, body })
        expect({ path, status: r.status, code: r.body?.error?.code }).toEqual({ path, status: 503, code: 'SERVICE_UNAVAILABLE' })
        expect(Date.now() - started).toBeLessThan(2_000)
      }
      const health = await call(app, 'GET', '/health')
      expect(health.status).toBe(503)
      expect(health.body).toMatchObject({ status: 'unhealthy', database: 'unreachable' })

      await proxy.start(port)
      let status = 0
      for (let i = 0; i < 50 && status !== 200; i++) {
        status = (await call(app, 'GET', '/api/me', { token: user.token })).status
        if (status !== 200) await new Promise((r) => setTimeout(r, 100))
      }
      expect(status).toBe(200)
      expect((await call(app, 'POST', '/api/companies', { token: user.token, body: { name: 'After the outage' } })).status).toBe(201)
    } finally {
      await app.close()
      await ctx.bus.close()
      await db.close()
      await proxy.stop().catch(() => {})
    }
  })
})
