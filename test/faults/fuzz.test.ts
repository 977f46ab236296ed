// A seeded fuzzer built from /openapi.json: at least 10,000 requests over every documented route
// with wrong types, huge and odd strings, NUL characters, deep nesting, bad ids, broken JSON and
// odd content types. No answer may be a 5xx, and every error answer must be in the envelope.
// FUZZ_SEED=<n> replays a run; FUZZ_REQUESTS=<n> changes its length.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCompany, createTask, hireAgent } from '../fixtures.ts'
import { call, createUser, type TestApp, testApp, type TestUser } from '../helpers.ts'
import { openPostgres } from '../../src/server/db/postgres.ts'
import { hasPostgresBinaries, type OwnPostgres, ownPostgres } from './postgres-cluster.ts'
import { inEnvelope } from './support.ts'

const SEED = Number(process.env.FUZZ_SEED ?? 20261125)
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 10_000)

/** mulberry32: a small seeded generator, so a failing run can be replayed exactly. */
function generator(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]
  return { next, int, pick }
}
type Rng = ReturnType<typeof generator>

const ODD_STRINGS = [
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  '%00',
  '\ud800',
  '\udfff\ud800',
  '😀'.repeat(50),
  '\u202e\u0301\u200b',
  "'; DROP TABLE tasks; --",
  '../../etc/passwd',
  '{"a":1}',
  'null',
  'true',
  '-1',
  '1e309',
  '9'.repeat(400),
  '2026-13-45T99:99:99Z',
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-4FFF-8FFF-FFFFFFFFFFFF',
  '<script>alert(1)</script>',
  '\\',
  '\r\n\r\n',
  '*/5 * * * * * *',
]

function oddValue(rng: Rng, depth = 0): unknown {
  switch (rng.int(14)) {
    case 0: return rng.pick(ODD_STRINGS)
    case 1: return 'x'.repeat(rng.pick([256, 10_001, 100_000, 1_000_000]))
    case 2: return rng.pick([0, -1, 1.5, 2 ** 31, -(2 ** 63), Number.MAX_SAFE_INTEGER, 1e300])
    case 3: return rng.pick([true, false, null])
    case 4: return depth < 3 ? [oddValue(rng, depth + 1), oddValue(rng, depth + 1)] : []
    case 5: return depth < 3 ? { [rng.pick(['id', 'a\u0000', '__proto__', 'constructor', 'x'])]: oddValue(rng, depth + 1) } : {}
    case 6: return crypto.randomUUID()
    case 7: return rng.pick(ODD_STRINGS) + 'y'.repeat(rng.int(300))
    case 8: return String.fromCharCode(...Array.from({ length: 20 }, () => rng.int(0x10000)))
    default: return rng.pick(ODD_STRINGS)
  }
}

/** Percent-encoding; a lone surrogate cannot be encoded, so it becomes invalid UTF-8 on the wire. */
function encode(value: string): string {
  try {
    return encodeURIComponent(value)
  } catch {
    return '%ED%A0%80'
  }
}

interface Route {
  method: string
  path: string
  properties: string[]
  query: string[]
}

function routesOf(doc: any): Route[] {
  const routes: Route[] = []
  for (const [path, operations] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(operations)) {
      // The event stream never ends on its own; it is covered by the event tests.
      if (path.endsWith('/events') && method === 'get') continue
      const body = op.requestBody?.content?.['application/json']?.schema
      const query = (op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name)
      routes.push({ method: method.toUpperCase(), path, properties: Object.keys(body?.properties ?? {}), query })
    }
  }
  return routes
}

let pg: OwnPostgres | null = null
let t: TestApp
let owner: TestUser
let ids: Record<string, string>

beforeAll(async () => {
  pg = hasPostgresBinaries() ? await ownPostgres() : null
  const db = pg ? openPostgres(pg.url) : undefined
  t = await testApp({ debug: true }, { db })
  owner = await createUser(t.ctx, 'Fuzz Owner')
  const company = await createCompany(t.app, owner.token)
  const agent = await hireAgent(t.app, owner.token, company.id)
  const task = await createTask(t.app, owner.token, company.id, { assignee_agent_id: agent.id })
  ids = { company_id: company.id, agent_id: agent.id, task_ref: task.id }
})
afterAll(async () => {
  await t?.close()
  if (t?.ctx.db) await t.ctx.db.close().catch(() => {})
  await pg?.destroy()
})

/** A path parameter: mostly the real record (so the handler runs), sometimes a bad id. */
function param(rng: Rng, name: string): string {
  if (rng.next() < 0.7 && ids[name]) return ids[name]
  return encode(String(rng.pick([...ODD_STRINGS.filter((s) => s !== ''), crypto.randomUUID(), 'ABC-1', '%zz'])))
}

function body(rng: Rng, route: Route): { payload?: string; contentType?: string } {
  const kind = rng.int(20)
  if (kind === 0) return { payload: '['.repeat(5_000) + ']'.repeat(5_000), contentType: 'application/json' }
  if (kind === 1) return { payload: '{"title": "unterminated', contentType: 'application/json' }
  if (kind === 2) return { payload: 'title=x', contentType: rng.pick(['application/x-www-form-urlencoded', 'text/plain', 'application/xml']) }
  if (kind === 3) return { payload: JSON.stringify(oddValue(rng)), contentType: 'application/json' }
  if (kind === 4) return {}
  const value: Record<string, unknown> = {}
  for (const name of route.properties) if (rng.next() < 0.6) value[name] = oddValue(rng)
  if (rng.next() < 0.2) value[rng.pick(['extra', 'a\u0000', 'id'])] = oddValue(rng)
  return { payload: JSON.stringify(value), contentType: 'application/json' }
}

function queryString(rng: Rng, route: Route): string {
  const names = [...route.query, 'limit', 'before', 'status', 'q']
  const parts: string[] = []
  for (const name of names) {
    if (rng.next() < 0.3) parts.push(`${name}=${encode(String(oddValue(rng))).slice(0, 20_000)}`)
  }
  if (rng.next() < 0.05) parts.push('%zz=%')
  return parts.length ? `?${parts.join('&')}` : ''
}

describe('fuzzing every route from /openapi.json', () => {
  it(`${REQUESTS} hostile requests (seed ${SEED}): no 5xx, every error in the envelope`, async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const routes = routesOf(doc)
    expect(routes.length).toBeGreaterThan(40)
    const rng = generator(SEED)
    const failures: string[] = []
    const statuses: Record<number, number> = {}
    for (let i = 0; i < REQUESTS; i++) {
      const route = rng.pick(routes)
      const path = route.path.replace(/\{(\w+)\}/g, (_m, name) => param(rng, name))
      const url = path + queryString(rng, route)
      const { payload, contentType } = ['POST', 'PATCH', 'PUT', 'DELETE'].includes(route.method) || rng.next() < 0.05 ? body(rng, route) : {}
      const headers: Record<string, string> = {}
      const auth = rng.int(20)
      if (auth > 1) headers.authorization = `Bearer ${owner.token}`
      else if (auth === 1) headers.authorization = `Bearer ${rng.pick(['svc_live_x', 'eyJhbGciOiJub25lIn0.e30.', 'a'.repeat(5000)])}`
      if (contentType) headers['content-type'] = contentType
      const r = await t.app.inject({ method: route.method as any, url, headers, payload })
      statuses[r.statusCode] = (statuses[r.statusCode] ?? 0) + 1
      let parsed: any = null
      try {
        parsed = JSON.parse(r.body)
      } catch {
        // checked below
      }
      const what = `#${i} ${route.method} ${url.slice(0, 200)} ${String(payload ?? '').slice(0, 200)} -> ${r.statusCode} ${r.body.slice(0, 300)}`
      if (r.statusCode >= 500) failures.push(what)
      else if (r.statusCode >= 400 && !inEnvelope(parsed)) failures.push(`outside the envelope: ${what}`)
      else if (r.statusCode >= 400 && r.body.length > 20_000) failures.push(`error answer of ${r.body.length} bytes: ${what}`)
      // The fuzzing may end the owner's access (a deleted company, a password changed): start again.
      if (i % 200 === 199 && (await call(t.app, 'GET', `/api/companies/${ids.company_id}`, { token: owner.token })).status !== 200) {
        owner = await createUser(t.ctx, 'Fuzz Owner')
        const company = await createCompany(t.app, owner.token)
        const agent = await hireAgent(t.app, owner.token, company.id)
        const task = await createTask(t.app, owner.token, company.id, { assignee_agent_id: agent.id })
        ids = { company_id: company.id, agent_id: agent.id, task_ref: task.id }
      }
    }
    console.log(`fuzz seed ${SEED}: ${REQUESTS} requests, statuses ${JSON.stringify(statuses)}`)
    expect(failures.slice(0, 20)).toEqual([])
  })
})
