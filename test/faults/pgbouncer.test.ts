// Shopfloor behind PgBouncer (Debian's package): in session pooling it works like a direct
// connection; in transaction pooling (which breaks its prepared statements, LISTEN and the
// migrations' advisory lock) the server finds out at start, before touching the schema, says
// what to change, and /readyz answers 503 so that no load balancer sends it traffic.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { hasPostgresBinaries, type OwnPostgres, ownPostgres } from './postgres-cluster.ts'
import { http, makeOwner } from './support.ts'
import { BIN, freePort, startServer } from '../server-process.ts'
import { type Child, launch, ownPgbouncer, outputShows } from './topology.ts'

let pg: OwnPostgres
const children: Child[] = []
beforeAll(async () => {
  if (!hasPostgresBinaries()) throw new Error('PostgreSQL server binaries (initdb) are needed')
  pg = await ownPostgres()
}, 60_000)
afterAll(async () => {
  for (const child of children) await child.stop()
  await pg?.destroy()
})

it('in session pooling the server migrates and serves writes through it', async () => {
  const bouncer = await ownPgbouncer(pg.port, 'session')
  children.push(bouncer.process)
  const server = await startServer({ DATABASE_URL: bouncer.url, ENVIRONMENT: 'test' })
  try {
    const owner = await makeOwner(server.url)
    for (let i = 0; i < 20; i++) expect((await http(server.url, 'POST', `${owner.base}/tasks`, owner.token, { title: `Pooled ${i}` })).status).toBe(201)
    expect((await http(server.url, 'GET', `${owner.base}/tasks`, owner.token)).body).toHaveLength(20)
  } finally {
    await server.stop()
  }
}, 90_000)

it('in transaction pooling the server says at start what to change and is not ready', async () => {
  const bouncer = await ownPgbouncer(pg.port, 'transaction')
  children.push(bouncer.process)
  const port = await freePort()
  const server = launch('serve', process.execPath, [BIN, 'serve'], {
    env: { ...process.env, DATABASE_URL: bouncer.url, ENVIRONMENT: 'test', SCHEDULER: 'off', LOG_LEVEL: 'info', PORT: String(port), HOST: '127.0.0.1' },
  })
  children.push(server)
  await outputShows(server, 'pool_mode = session', 60_000)
  expect(server.output()).toContain('transaction mode')
  const ready = await http(`http://127.0.0.1:${port}`, 'GET', '/readyz')
  expect(ready.status).toBe(503)
  expect(ready.body.error.code).toBe('SERVICE_UNAVAILABLE')
  expect((await http(`http://127.0.0.1:${port}`, 'GET', '/livez')).status).toBe(200)
  // Nothing was written: the schema was never touched through the pooler.
  const tables = await http(`http://127.0.0.1:${port}`, 'POST', '/api/register', undefined, { email: 'x@example.test', password: 'password123', name: 'X' })
  expect(tables.status).toBe(503)
}, 90_000)
