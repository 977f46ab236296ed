// Hostile input: NUL characters, deep nesting, huge strings and odd tokens are refused in the
// envelope with the right code, on every route, and never echoed back in full.
import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signAccessToken } from '../../src/server/auth/tokens.ts'
import { createCompany, createTask } from '../fixtures.ts'
import { call, createUser, type TestApp, testApp, type TestUser } from '../helpers.ts'
import { seedAgent, seedCompany } from '../runs/seed.ts'

let t: TestApp
let user: TestUser
let base: string
let taskId: string
beforeAll(async () => {
  t = await testApp({ runLeaseSeconds: 60 })
  user = await createUser(t.ctx)
  const company = await createCompany(t.app, user.token)
  base = `/api/companies/${company.id}`
  taskId = (await createTask(t.app, user.token, company.id)).id
})
afterAll(async () => t?.close())

function expectValidation(r: { status: number; body: any }, loc: (string | number)[]) {
  expect(r.status).toBe(422)
  expect(r.body.error.code).toBe('VALIDATION_ERROR')
  expect(r.body.error.details.errors[0].loc).toEqual(loc)
  expect(r.body.error.message).toContain(loc.slice(1).join('.'))
}

describe('a NUL character (\\u0000)', () => {
  it('in a task title is 422 naming the field, and nothing is written', async () => {
    const before = await t.ctx.db.one<{ n: number }>('SELECT count(*) AS n FROM tasks')
    const r = await call(t.app, 'POST', `${base}/tasks`, { token: user.token, body: { title: 'a\u0000b' } })
    expectValidation(r, ['body', 'title'])
    expect(r.body.error.message).toMatch(/NUL/)
    expect(await t.ctx.db.one('SELECT count(*) AS n FROM tasks')).toEqual(before)
  })

  it('in a comment body is 422', async () => {
    const r = await call(t.app, 'POST', `${base}/tasks/${taskId}/comments`, { token: user.token, body: { body: 'hi\u0000there' } })
    expectValidation(r, ['body', 'body'])
  })

  it('in transcript text reported by a runner is 422', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s, { name: 'Nul' })
    const woken = await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: { reason: 'go' } })
    await call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body: { runner_id: 'r1' } })
    const r = await call(t.app, 'PATCH', `${s.base}/runs/${woken.body.id}`, {
      token: s.user.token,
      body: { runner_id: 'r1', transcript: [{ text: 'ok' }, { text: 'bad\u0000' }] },
    })
    expectValidation(r, ['body', 'transcript', 1, 'text'])
  })

  it('in a key of a nested object, a query parameter and a sign-in are 422', async () => {
    const nested = await call(t.app, 'POST', '/api/companies', { token: user.token, body: { name: 'X', ['bad\u0000key']: 1 } })
    expectValidation(nested, ['body', 'bad\u0000key'])
    const query = await call(t.app, 'GET', `${base}/tasks?q=a%00b`, { token: user.token })
    expectValidation(query, ["query", "q"])
    const login = await call(t.app, 'POST', '/api/login', { body: { email: 'a\u0000@example.test', password: 'x' } })
    expectValidation(login, ['body', 'email'])
  })
})

describe('deep nesting', () => {
  it('thousands of nested arrays are 422 VALIDATION_ERROR in the envelope', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000)
    const r = await t.app.inject({
      method: 'POST',
      url: `${base}/tasks`,
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
      payload: `{"title":"x","labels":${deep}}`,
    })
    expect(r.statusCode).toBe(422)
    const body = r.json()
    expect(body.error.code).toBe('VALIDATION_ERROR')
    expect(body.error.message).toMatch(/nested deeper than 64/)
  })

  it('brackets inside strings do not count as nesting', async () => {
    const r = await call(t.app, 'POST', `${base}/tasks`, { token: user.token, body: { title: '['.repeat(100) + '{'.repeat(100) } })
    expect(r.status).toBe(201)
  })
})

describe('echoed input', () => {
  it('a 1 MB invalid string is clipped in the error details', async () => {
    const huge = 'x'.repeat(1024 * 1024)
    const r = await t.app.inject({
      method: 'POST',
      url: `${base}/tasks`,
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ title: 'ok', priority: huge }),
    })
    expect(r.statusCode).toBe(422)
    expect(r.body.length).toBeLessThan(2000)
    const issue = r.json().error.details.errors.find((e: any) => e.loc.join('.') === 'body.priority')
    expect(issue.input).toBe(`${'x'.repeat(200)}...`)
  })

  it('a huge invalid object is echoed as the start of its JSON', async () => {
    const r = await call(t.app, 'POST', `${base}/tasks`, { token: user.token, body: { title: { a: 'y'.repeat(100_000) } } })
    expect(r.status).toBe(422)
    expect(JSON.stringify(r.body).length).toBeLessThan(2000)
  })
})

describe('access token claims', () => {
  const sign = (claims: Record<string, unknown>, set: (jwt: SignJWT) => SignJWT, alg = 'HS256') =>
    set(new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' })).sign(new TextEncoder().encode(t.ctx.config.jwtSecret))

  it('a token signed with the right secret is refused without exp, iat, sub or type access, or signed otherwise than HS256', async () => {
    const now = Math.floor(Date.now() / 1000)
    const tokens = {
      noExp: await sign({ type: 'access' }, (j) => j.setSubject(user.id).setIssuedAt(now)),
      noIat: await sign({ type: 'access' }, (j) => j.setSubject(user.id).setExpirationTime(now + 600)),
      noSub: await sign({ type: 'access' }, (j) => j.setIssuedAt(now).setExpirationTime(now + 600)),
      noType: await sign({}, (j) => j.setSubject(user.id).setIssuedAt(now).setExpirationTime(now + 600)),
      refresh: await sign({ type: 'refresh' }, (j) => j.setSubject(user.id).setIssuedAt(now).setExpirationTime(now + 600)),
      // Every claim right, but not HS256: another algorithm with the same secret, or none at all.
      hs512: await sign({ type: 'access' }, (j) => j.setSubject(user.id).setIssuedAt(now).setExpirationTime(now + 600), 'HS512'),
      unsigned: [{ alg: 'none', typ: 'JWT' }, { type: 'access', sub: user.id, iat: now, exp: now + 600 }]
        .map((part) => Buffer.from(JSON.stringify(part)).toString('base64url')).join('.') + '.',
    }
    for (const [name, token] of Object.entries(tokens)) {
      const r = await call(t.app, 'GET', '/api/me', { token })
      expect({ name, status: r.status, code: r.body.error?.code }).toEqual({ name, status: 401, code: 'INVALID_TOKEN' })
    }
    const good = await call(t.app, 'GET', '/api/me', { token: signAccessToken(t.ctx.config.jwtSecret, user.id) })
    expect(good.status).toBe(200)
  })
})

describe('timestamps', () => {
  it('every timestamp has six fractional digits, also when the clock gives fewer', async () => {
    const activity = await call(t.app, 'GET', `${base}/activity`, { token: user.token })
    expect(activity.status).toBe(200)
    expect(activity.body.length).toBeGreaterThan(0)
    for (const item of activity.body) expect(item.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/)
    // Values whose fraction ends in zeros, or is zero, come back from the database shortened.
    const row = await t.ctx.db.one<{ a: string; b: string; c: string }>(
      "SELECT '2026-01-02 03:04:05.5+00'::timestamptz AS a, '2026-01-02 03:04:05+00'::timestamptz AS b, '2026-01-02 03:04:05.123456+00'::timestamptz AS c",
    )
    expect(row).toEqual({ a: '2026-01-02T03:04:05.500000+00:00', b: '2026-01-02T03:04:05.000000+00:00', c: '2026-01-02T03:04:05.123456+00:00' })
    // So do timestamps inside JSON the database builds (a run's context, transcripts), and only
    // values that are timestamps: not one quoted inside a text, nor a key.
    const json = await t.ctx.db.one<{ j: Record<string, unknown> }>(
      `SELECT jsonb_build_object('a', '2026-01-02 03:04:05.5+00'::timestamptz, 'b', '2026-01-02 03:04:05+00'::timestamptz,
                                 'c', '2026-01-02 03:04:05.123456+00'::timestamptz, 'list', jsonb_build_array('2026-01-02 03:04:05.12+00'::timestamptz),
                                 'text', 'said "2026-01-02T03:04:05+00:00" twice', 'keyed', jsonb_build_object('2026-01-02T03:04:05+00:00', 1)) AS j`,
    )
    expect(json!.j).toEqual({
      a: '2026-01-02T03:04:05.500000+00:00', b: '2026-01-02T03:04:05.000000+00:00', c: '2026-01-02T03:04:05.123456+00:00',
      list: ['2026-01-02T03:04:05.120000+00:00'], text: 'said "2026-01-02T03:04:05+00:00" twice', keyed: { '2026-01-02T03:04:05+00:00': 1 },
    })
  })
})
