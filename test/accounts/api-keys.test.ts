import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomToken, sha256 } from '../../src/server/auth/tokens.ts'
import { createCompany, createTask } from '../fixtures.ts'
import { call, createUser, type TestApp, testApp, type TestUser } from '../helpers.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

const create = (user: TestUser, body: unknown) => call(t.app, 'POST', '/api/me/api-keys', { token: user.token, body })
const list = (token: string) => call(t.app, 'GET', '/api/me/api-keys', { token })
const revoke = (token: string, id: string) => call(t.app, 'DELETE', `/api/me/api-keys/${id}`, { token })

describe('creating a key', () => {
  it('answers 201 with the record and the key, shown once and stored only as SHA-256', async () => {
    const user = await createUser(t.ctx)
    const r = await create(user, { name: 'laptop' })
    expect(r.status).toBe(201)
    expect(Object.keys(r.body).sort()).toEqual(['company_id', 'created_at', 'expires_at', 'id', 'key', 'last_used', 'name', 'prefix'])
    expect(r.body.key).toMatch(/^svc_live_[A-Za-z0-9_-]{32}$/)
    expect(r.body.key).toHaveLength(41)
    expect(r.body).toMatchObject({ name: 'laptop', prefix: r.body.key.slice(0, 13), last_used: null, expires_at: null, company_id: null })
    const row = await t.ctx.db.one('SELECT key_hash FROM api_keys WHERE id = $1', [r.body.id])
    expect(row!.key_hash).toBe(sha256(r.body.key))
    // The key never appears again.
    expect((await list(user.token)).body[0]).not.toHaveProperty('key')
  })

  it('with expires_in_days sets the expiry that many days ahead', async () => {
    const user = await createUser(t.ctx)
    const r = await create(user, { name: 'temp', expires_in_days: 7 })
    const days = (Date.parse(r.body.expires_at) - Date.parse(r.body.created_at)) / 86_400_000
    expect(days).toBeCloseTo(7, 3)
  })

  it('validates the name (1 to 100) and expires_in_days (1 to 3650)', async () => {
    const user = await createUser(t.ctx)
    for (const body of [{ name: '' }, { name: 'n'.repeat(101) }, { name: 'a', expires_in_days: 0 }, { name: 'a', expires_in_days: 3651 }, { name: 'a', expires_in_days: '5' }]) {
      const r = await create(user, body)
      expect(r.status).toBe(422)
    }
    expect((await create(user, { name: 'n'.repeat(100), expires_in_days: 3650 })).status).toBe(201)
  })

  it('rejects a second active key with the same name: 409 API_KEY_EXISTS', async () => {
    const user = await createUser(t.ctx)
    await create(user, { name: 'dup' })
    const r = await create(user, { name: 'dup' })
    expect(r.status).toBe(409)
    expect(r.body.error.code).toBe('API_KEY_EXISTS')
    // Another user may use the same name.
    expect((await create(await createUser(t.ctx), { name: 'dup' })).status).toBe(201)
  })

  it("a revoked or expired key's name can be reused", async () => {
    const user = await createUser(t.ctx)
    const first = await create(user, { name: 'reuse' })
    expect((await revoke(user.token, first.body.id)).status).toBe(204)
    const second = await create(user, { name: 'reuse' })
    expect(second.status).toBe(201)
    await t.ctx.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [second.body.id])
    expect((await create(user, { name: 'reuse' })).status).toBe(201)
  })

  it('allows 20 active keys; the 21st is 400 API_KEY_LIMIT; revoked and expired keys do not count', async () => {
    const user = await createUser(t.ctx)
    const ids: string[] = []
    for (let i = 0; i < 20; i++) ids.push((await create(user, { name: `k${i}` })).body.id)
    const over = await create(user, { name: 'k20' })
    expect(over.status).toBe(400)
    expect(over.body.error.code).toBe('API_KEY_LIMIT')
    await revoke(user.token, ids[0])
    expect((await create(user, { name: 'k20' })).status).toBe(201)
    await t.ctx.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [ids[1]])
    expect((await create(user, { name: 'k21' })).status).toBe(201)
    expect((await create(user, { name: 'k22' })).body.error.code).toBe('API_KEY_LIMIT')
  })

  it('holds the limit and the name rule under simultaneous requests', async () => {
    const user = await createUser(t.ctx)
    const many = await Promise.all(Array.from({ length: 24 }, (_, i) => create(user, { name: `p${i}` })))
    expect(many.filter((r) => r.status === 201)).toHaveLength(20)
    expect(many.filter((r) => r.status === 400 && r.body.error.code === 'API_KEY_LIMIT')).toHaveLength(4)
    const other = await createUser(t.ctx)
    const same = await Promise.all(Array.from({ length: 5 }, () => create(other, { name: 'same' })))
    expect(same.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409])
  })

  it('needs a password session: an API key gets 403 SESSION_REQUIRED', async () => {
    const user = await createUser(t.ctx)
    const key = (await create(user, { name: 'first' })).body.key
    const r = await call(t.app, 'POST', '/api/me/api-keys', { token: key, body: { name: 'second' } })
    expect(r.status).toBe(403)
    expect(r.body.error.code).toBe('SESSION_REQUIRED')
    // Refused before the body is even looked at.
    expect((await call(t.app, 'POST', '/api/me/api-keys', { token: key, body: { name: '' } })).status).toBe(403)
    expect((await list(user.token)).body).toHaveLength(1)
  })
})

describe('a key limited to one company', () => {
  it('acts in that company only: every other is 404 Company not found and the list holds that one alone', async () => {
    const user = await createUser(t.ctx)
    const mine = await createCompany(t.app, user.token, { name: 'Acme' })
    const other = await createCompany(t.app, user.token, { name: 'Other' })
    const r = await create(user, { name: 'runner for Acme', company_id: mine.id })
    expect(r.status).toBe(201)
    expect(r.body.company_id).toBe(mine.id)
    expect((await list(user.token)).body.find((k: any) => k.id === r.body.id).company_id).toBe(mine.id)
    const key = r.body.key

    const companies = await call(t.app, 'GET', '/api/companies', { token: key })
    expect(companies.body.map((c: any) => c.id)).toEqual([mine.id])
    // The person's own session still sees both.
    expect((await call(t.app, 'GET', '/api/companies', { token: user.token })).body).toHaveLength(2)

    expect((await call(t.app, 'GET', `/api/companies/${mine.id}`, { token: key })).status).toBe(200)
    expect((await createTask(t.app, key, mine.id)).key).toMatch(/-1$/)
    for (const path of ['', '/tasks', '/agents', '/dashboard']) {
      const refused = await call(t.app, 'GET', `/api/companies/${other.id}${path}`, { token: key })
      expect(refused.status).toBe(404)
      expect(refused.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Company not found' })
    }
    const write = await call(t.app, 'POST', `/api/companies/${other.id}/tasks`, { token: key, body: { title: 'sneak' } })
    expect(write.status).toBe(404)
    expect((await call(t.app, 'GET', `/api/companies/${other.id}/tasks`, { token: user.token })).body).toHaveLength(0)
  })

  it('cannot make a company (it could not reach it), nor import one: 403', async () => {
    const user = await createUser(t.ctx)
    const mine = await createCompany(t.app, user.token)
    const key = (await create(user, { name: 'limited', company_id: mine.id })).body.key
    const made = await call(t.app, 'POST', '/api/companies', { token: key, body: { name: 'Escape' } })
    expect(made.status).toBe(403)
    expect(made.body.error.message).toMatch(/limited to one company/)
    expect((await call(t.app, 'GET', '/api/companies', { token: user.token })).body).toHaveLength(1)
    const unlimited = (await create(user, { name: 'everywhere' })).body.key
    expect((await call(t.app, 'POST', '/api/companies', { token: unlimited, body: { name: 'Fine' } })).status).toBe(201)
  })

  it("is refused for a company the person is not in (404, nothing made), and a malformed id is 422", async () => {
    const user = await createUser(t.ctx)
    const stranger = await createUser(t.ctx)
    const theirs = await createCompany(t.app, stranger.token)
    const r = await create(user, { name: 'theirs', company_id: theirs.id })
    expect(r.status).toBe(404)
    expect(r.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Company not found' })
    expect((await list(user.token)).body).toHaveLength(0)
    const bad = await create(user, { name: 'bad', company_id: 'acme' })
    expect(bad.status).toBe(422)
    expect(JSON.stringify(bad.body.error.details)).toContain('company_id')
  })

  it('leaving the company stops the key there at once', async () => {
    const owner = await createUser(t.ctx)
    const user = await createUser(t.ctx)
    const company = await createCompany(t.app, owner.token)
    await t.ctx.db.query(`INSERT INTO memberships (user_id, company_id, role) VALUES ($1, $2, 'member')`, [user.id, company.id])
    const key = (await create(user, { name: 'runner', company_id: company.id })).body.key
    expect((await call(t.app, 'GET', `/api/companies/${company.id}/tasks`, { token: key })).status).toBe(200)
    await t.ctx.db.query('DELETE FROM memberships WHERE user_id = $1', [user.id])
    t.ctx.credentials.clear()
    expect((await call(t.app, 'GET', `/api/companies/${company.id}/tasks`, { token: key })).status).toBe(404)
    expect((await call(t.app, 'GET', '/api/companies', { token: key })).body).toEqual([])
  })
})

describe('expires_at', () => {
  it('sets the expiry at that instant; with expires_in_days too, or in the past, it is 422', async () => {
    const user = await createUser(t.ctx)
    const at = new Date(Date.now() + 3 * 86_400_000).toISOString()
    const r = await create(user, { name: 'until', expires_at: at })
    expect(r.status).toBe(201)
    expect(Date.parse(r.body.expires_at)).toBe(Date.parse(at))
    const both = await create(user, { name: 'both', expires_at: at, expires_in_days: 3 })
    expect(both.status).toBe(422)
    expect(both.body.error.message + JSON.stringify(both.body.error.details)).toMatch(/not both/)
    const past = await create(user, { name: 'past', expires_at: new Date(Date.now() - 60_000).toISOString() })
    expect(past.status).toBe(422)
    expect(JSON.stringify(past.body.error.details)).toMatch(/in the future/)
    expect((await list(user.token)).body.map((k: any) => k.name)).toEqual(['until'])
  })
})

describe('listing keys', () => {
  it('lists active keys only, newest first, with a session or a key', async () => {
    const user = await createUser(t.ctx)
    const a = (await create(user, { name: 'a' })).body
    const b = (await create(user, { name: 'b' })).body
    const c = (await create(user, { name: 'c' })).body
    await revoke(user.token, b.id)
    await t.ctx.db.query(`UPDATE api_keys SET created_at = created_at - interval '1 hour' WHERE id = $1`, [c.id])
    const bySession = await list(user.token)
    expect(bySession.status).toBe(200)
    expect(bySession.body.map((k: any) => k.name)).toEqual(['a', 'c'])
    const byKey = await list(a.key)
    expect(byKey.body.map((k: any) => k.id)).toEqual([a.id, c.id])
    await t.ctx.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [c.id])
    expect((await list(user.token)).body.map((k: any) => k.name)).toEqual(['a'])
  })

  it("never shows another user's keys", async () => {
    const one = await createUser(t.ctx)
    const two = await createUser(t.ctx)
    await create(one, { name: 'mine' })
    expect((await list(two.token)).body).toEqual([])
  })
})

describe('revoking a key', () => {
  it('answers 204 and the key stops working on the next request', async () => {
    const user = await createUser(t.ctx)
    const k = (await create(user, { name: 'gone' })).body
    expect((await call(t.app, 'GET', '/api/me', { token: k.key })).status).toBe(200)
    const r = await revoke(user.token, k.id)
    expect(r.status).toBe(204)
    expect(r.body).toBeNull()
    const after = await call(t.app, 'GET', '/api/me', { token: k.key })
    expect(after.status).toBe(401)
    expect(after.body.error.code).toBe('INVALID_TOKEN')
  })

  it("is 404 for an already revoked key, an expired key, someone else's key and an unknown id", async () => {
    const user = await createUser(t.ctx)
    const other = await createUser(t.ctx)
    const revoked = (await create(user, { name: 'r' })).body
    await revoke(user.token, revoked.id)
    const expired = (await create(user, { name: 'e' })).body
    await t.ctx.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired.id])
    const theirs = (await create(other, { name: 'theirs' })).body
    for (const id of [revoked.id, expired.id, theirs.id, '00000000-0000-4000-8000-000000000000']) {
      const r = await revoke(user.token, id)
      expect(r.status).toBe(404)
      expect(r.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'API key not found' })
    }
    expect((await call(t.app, 'GET', '/api/me', { token: theirs.key })).status).toBe(200)
  })

  it('a malformed id is 422', async () => {
    const user = await createUser(t.ctx)
    expect((await revoke(user.token, 'not-a-uuid')).status).toBe(422)
  })

  it('needs a password session', async () => {
    const user = await createUser(t.ctx)
    const k = (await create(user, { name: 'self' })).body
    const r = await revoke(k.key, k.id)
    expect(r.status).toBe(403)
    expect(r.body.error.code).toBe('SESSION_REQUIRED')
  })
})

describe('authenticating with a key', () => {
  it('an expired key is 401 INVALID_TOKEN', async () => {
    const user = await createUser(t.ctx)
    const k = (await create(user, { name: 'old', expires_in_days: 1 })).body
    await t.ctx.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [k.id])
    expect((await call(t.app, 'GET', '/api/me', { token: k.key })).body.error.code).toBe('INVALID_TOKEN')
  })

  it('svc_test_ values are treated as keys, never decoded as tokens', async () => {
    const user = await createUser(t.ctx)
    const testKey = `svc_test_${randomToken(24)}`
    expect((await call(t.app, 'GET', '/api/me', { token: testKey })).body.error.code).toBe('INVALID_TOKEN')
    await t.ctx.db.query(`INSERT INTO api_keys (user_id, name, prefix, key_hash) VALUES ($1, 'test', $2, $3)`, [
      user.id,
      testKey.slice(0, 13),
      sha256(testKey),
    ])
    const r = await call(t.app, 'GET', '/api/me', { token: testKey })
    expect(r.status).toBe(200)
    expect(r.body.id).toBe(user.id)
  })

  it('last_used is stamped on use and moves at most once a minute', async () => {
    const user = await createUser(t.ctx)
    const k = (await create(user, { name: 'busy' })).body
    await call(t.app, 'GET', '/api/me', { token: k.key })
    const first = (await list(user.token)).body[0].last_used
    expect(first).toEqual(expect.any(String))
    await call(t.app, 'GET', '/api/me', { token: k.key })
    expect((await list(user.token)).body[0].last_used).toBe(first)
    await t.ctx.db.query(`UPDATE api_keys SET last_used = last_used - interval '61 seconds' WHERE id = $1`, [k.id])
    // The key's answer is cached (for at most 30 s, well inside the minute); the next use after
    // that reads the key again and stamps it.
    t.ctx.credentials.clear()
    const backdated = (await list(user.token)).body[0].last_used
    await call(t.app, 'GET', '/api/me', { token: k.key })
    expect(Date.parse((await list(user.token)).body[0].last_used)).toBeGreaterThan(Date.parse(backdated))
  })
})

describe('the older /api/users/{username}/api-keys paths', () => {
  it('manage the caller\'s own keys with a limit of 10 and the same refusal of API keys', async () => {
    const user = await createUser(t.ctx)
    const base = `/api/users/${encodeURIComponent(user.email.toUpperCase())}/api-keys`
    const ids: string[] = []
    for (let i = 0; i < 10; i++) {
      const r = await call(t.app, 'POST', base, { token: user.token, body: { name: `legacy-${i}` } })
      expect(r.status).toBe(201)
      ids.push(r.body.id)
    }
    const over = await call(t.app, 'POST', base, { token: user.token, body: { name: 'legacy-10' } })
    expect(over.status).toBe(400)
    expect(over.body.error.code).toBe('API_KEY_LIMIT')
    // The supported path still allows up to 20.
    expect((await create(user, { name: 'modern' })).status).toBe(201)

    const key = (await create(user, { name: 'as-key' })).body.key
    expect((await call(t.app, 'POST', `/api/users/${user.id}/api-keys`, { token: key, body: { name: 'x' } })).body.error.code).toBe('SESSION_REQUIRED')
    expect((await call(t.app, 'DELETE', `${base}/${ids[0]}`, { token: key })).body.error.code).toBe('SESSION_REQUIRED')
    expect((await call(t.app, 'GET', base, { token: key })).body).toHaveLength(12)
    expect((await call(t.app, 'DELETE', `${base}/${ids[0]}`, { token: user.token })).status).toBe(204)
  })

  it("someone else's username is 404", async () => {
    const user = await createUser(t.ctx)
    const other = await createUser(t.ctx)
    const r = await call(t.app, 'GET', `/api/users/${encodeURIComponent(other.email)}/api-keys`, { token: user.token })
    expect(r.status).toBe(404)
    expect(r.body.error.code).toBe('NOT_FOUND')
  })
})
