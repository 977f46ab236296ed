// Start-up and shutdown: no API request reaches a table before the migrations, and every answer
// the service gives while it cannot serve is a 503 in the envelope.
import net from 'node:net'
import { describe, expect, it } from 'vitest'
import { buildApp } from '../../src/api/app.ts'
import { readMigrations } from '../../src/server/db/migrate.ts'
import { createLogger } from '../../src/server/logger.ts'
import { createContext } from '../../src/server/start.ts'
import { openPostgres } from '../../src/server/db/postgres.ts'
import { call, emptyDb, scratchPostgres, TEST_DATABASE_URL, testApp, testConfig, uniqueEmail } from '../helpers.ts'

const register = (app: Awaited<ReturnType<typeof buildApp>>) =>
  call(app, 'POST', '/api/register', { body: { email: uniqueEmail(), password: 'password123', name: 'Early Bird' } })

describe('start-up', () => {
  it.runIf(TEST_DATABASE_URL)('an API request that arrives before the migrations waits for them instead of meeting a missing table', async () => {
    const scratch = (await scratchPostgres({ empty: true }))!
    const config = testConfig({ databaseUrl: scratch.url })
    const db = openPostgres(scratch.url)
    // The migrations start (the first one takes a second), but are not awaited.
    const migrations = [{ version: 0, name: '000_slow.sql', sql: 'SELECT pg_sleep(1)' }, ...readMigrations()]
    const ctx = await createContext(config, createLogger(config), { db, waitForMigrations: false, migrations })
    const app = await buildApp(ctx)
    try {
      expect(ctx.dbState).toBe('starting')
      const r = await register(app)
      expect(r.status).toBe(201)
      expect(ctx.dbState).toBe('ready')
    } finally {
      await app.close()
      await ctx.bus.close()
      await db.close()
      await scratch.drop()
    }
  })

  it('an API request is answered 503 SERVICE_UNAVAILABLE saying the service is starting when the database stays unready', async () => {
    const t = await testApp()
    try {
      t.ctx.dbState = 'starting'
      const started = Date.now()
      const r = await register(t.app)
      expect(r.status).toBe(503)
      expect(r.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: {} })
      expect(r.body.error.message).toMatch(/starting/)
      expect(Date.now() - started).toBeGreaterThanOrEqual(4_900)
      // /health answers for itself, as the spec says.
      const health = await call(t.app, 'GET', '/health')
      expect(health.status).toBe(503)
      expect(health.body).toMatchObject({ status: 'unhealthy', database: 'unreachable' })
    } finally {
      t.ctx.dbState = 'ready'
      await t.close()
    }
  })

  it('after a failed migration every API request is 503 in the envelope, never a 500 from a missing table', async () => {
    const config = testConfig()
    const db = await emptyDb()
    const ctx = await createContext(config, createLogger(config), {
      db,
      migrations: [{ version: 1, name: '001_broken.sql', sql: 'CREATE TABLE broken (' }],
    })
    const app = await buildApp(ctx)
    try {
      expect(ctx.dbState).toBe('failed')
      const r = await register(app)
      expect(r.status).toBe(503)
      expect(r.body.error.code).toBe('SERVICE_UNAVAILABLE')
      expect((await call(app, 'GET', '/health')).body.database).toBe('initialization failed')
    } finally {
      await app.close()
      await ctx.bus.close()
      await db.close()
    }
    expect(readMigrations().length).toBeGreaterThan(0)
  })
})

const rawLogin = () => {
  const login = JSON.stringify({ email: uniqueEmail(), password: 'password123' })
  return `POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${login.length}\r\n\r\n${login}`
}

/** A connection that collects everything the server sends until it closes the connection. */
function connection(port: number) {
  const socket = net.connect(port, '127.0.0.1')
  let data = ''
  socket.on('data', (d) => (data += d))
  socket.on('error', () => {})
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(data)))
  return { socket, closed }
}

describe('shutdown', () => {
  it('a request that reaches the server while it shuts down is 503 SERVICE_UNAVAILABLE in the envelope', async () => {
    const t = await testApp()
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const port = (t.app.server.address() as net.AddressInfo).port
    let closing: Promise<void> | undefined
    try {
      // Sign-ins (bcrypt, one at a time) keep connection A busy while close() begins; A's
      // next request arrives during the shutdown.
      const others = [connection(port), connection(port)]
      for (const o of others) o.socket.write(rawLogin())
      const a = connection(port)
      a.socket.write(rawLogin())
      await new Promise((r) => setTimeout(r, 100))
      closing = t.app.close()
      await new Promise((r) => setTimeout(r, 200))
      a.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n')
      const raw = await a.closed
      const second = raw.split(/(?=HTTP\/1\.1 )/)[1]
      expect(second).toMatch(/^HTTP\/1\.1 503/)
      const body = JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4))
      expect(body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: {} })
      expect(body.error.message).toMatch(/shutting down/)
      for (const o of others) o.socket.destroy()
    } finally {
      await closing
      await t.ctx.bus.close()
      await t.ctx.db.close()
    }
  })
})
