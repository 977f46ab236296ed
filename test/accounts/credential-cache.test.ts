import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { addMember, removeMember } from '../../src/domain/companies/members.ts'
import { type Authenticated, type AuthContext, authenticate } from '../../src/server/auth/authenticate.ts'
import { CredentialCache } from '../../src/server/auth/credential-cache.ts'
import type { Db, Queryable } from '../../src/server/db/db.ts'
import { openPostgres } from '../../src/server/db/postgres.ts'
import { createCompany } from '../fixtures.ts'
import { call, createUser, workerDatabaseUrl, TEST_DATABASE_URL, type TestApp, testApp, type TestUser } from '../helpers.ts'

// Changes made "elsewhere" go through a connection of their own on PostgreSQL, as the operator
// commands and other API instances do; the embedded database has one session for everything.
let t: TestApp
let elsewhere: Db
beforeAll(async () => {
  t = await testApp()
  const url = workerDatabaseUrl()
  elsewhere = url ? openPostgres(await url, undefined, 2) : t.ctx.db
})
afterAll(async () => {
  if (elsewhere !== t?.ctx.db) await elsewhere?.close()
  await t?.close()
})

/** The real database, counting the statements sent through it. */
function counted(db: Queryable) {
  const counter = { statements: 0 }
  const wrap =
    <K extends 'query' | 'one' | 'many'>(name: K) =>
    (...args: Parameters<Queryable[K]>) => {
      counter.statements++
      return (db[name] as any)(...args)
    }
  const queryable: Queryable = { query: wrap('query'), one: wrap('one'), many: wrap('many'), exec: (sql) => db.exec(sql) }
  return { queryable, counter }
}

/** A context whose cache is its own, and its statement counter. */
function authContext(): { ctx: AuthContext; counter: { statements: number }; cache: CredentialCache<Authenticated> } {
  const { queryable, counter } = counted(t.ctx.db)
  const cache = new CredentialCache<Authenticated>(t.ctx.db)
  return { ctx: { db: queryable, config: t.ctx.config, credentials: cache }, counter, cache }
}

/** Statements one authenticate call sent; throws what authenticate threw. */
async function statementsFor(a: ReturnType<typeof authContext>, credential: string, companyId: string | null = null) {
  const before = a.counter.statements
  await authenticate(a.ctx, credential, companyId)
  return a.counter.statements - before
}

/** Waits until the cache serves the credential without a statement (it listens by then). */
async function untilCached(a: ReturnType<typeof authContext>, credential: string, companyId: string | null = null) {
  await vi.waitFor(async () => expect(await statementsFor(a, credential, companyId)).toBe(0), { timeout: 5000, interval: 20 })
}

async function newKey(user: TestUser): Promise<{ id: string; key: string }> {
  const r = await call(t.app, 'POST', '/api/me/api-keys', { token: user.token, body: { name: `key ${Date.now()}` } })
  expect(r.status).toBe(201)
  return r.body
}

async function member(): Promise<{ user: TestUser; key: string; keyId: string; companyId: string }> {
  const user = await createUser(t.ctx)
  const company = await createCompany(t.app, user.token)
  const { id, key } = await newKey(user)
  return { user, key, keyId: id, companyId: company.id }
}

describe('cached credentials', () => {
  it('an API key with its membership, and a session, are answered without the database once cached', async () => {
    const m = await member()
    const a = authContext()
    expect(await statementsFor(a, m.key, m.companyId)).toBeGreaterThan(0)
    await untilCached(a, m.key, m.companyId)
    const answer = await authenticate(a.ctx, m.key, m.companyId)
    expect(answer).toMatchObject({ role: 'owner', principal: { via: 'key', keyId: m.keyId, user: { id: m.user.id } } })
    // Another company is another question.
    expect(await statementsFor(a, m.key, null)).toBeGreaterThan(0)
    await untilCached(a, m.user.token, m.companyId)
    expect((await authenticate(a.ctx, m.user.token, m.companyId)).principal.via).toBe('session')
  })

  it('a key revoked through the API is refused by the very next request', async () => {
    const m = await member()
    const path = `/api/companies/${m.companyId}/agents`
    // Enough requests for the answer to be cached on this process.
    for (let i = 0; i < 20; i++) expect((await call(t.app, 'GET', path, { token: m.key })).status).toBe(200)
    expect((await call(t.app, 'DELETE', `/api/me/api-keys/${m.keyId}`, { token: m.user.token })).status).toBe(204)
    const r = await call(t.app, 'GET', path, { token: m.key })
    expect(r.status).toBe(401)
    expect(r.body.error.code).toBe('INVALID_TOKEN')
  })

  it('a new name is the actor of the very next audit event', async () => {
    const m = await member()
    const path = `/api/companies/${m.companyId}/goals`
    for (let i = 0; i < 20; i++) await call(t.app, 'GET', path, { token: m.key })
    expect((await call(t.app, 'PATCH', '/api/me', { token: m.user.token, body: { name: 'Renamed Person' } })).status).toBe(200)
    const goal = await call(t.app, 'POST', path, { token: m.key, body: { title: 'After the rename' } })
    expect(goal.status).toBe(201)
    const row = await t.ctx.db.one<{ actor_name: string }>('SELECT actor_name FROM audit_events WHERE entity_id = $1', [goal.body.id])
    expect(row!.actor_name).toBe('Renamed Person')
  })

  it('changes made by another connection are seen: revoked key, removed member, deactivated user, password reset', async () => {
    const m = await member()
    const other = await createUser(t.ctx)
    await addMember(elsewhere, m.companyId, other.email, 'member')
    const a = authContext()
    const otherKey = (await newKey(other)).key

    await untilCached(a, otherKey, m.companyId)
    await removeMember(elsewhere, m.companyId, other.email)
    await vi.waitFor(async () => expect((await authenticate(a.ctx, otherKey, m.companyId)).role).toBeNull(), { timeout: 5000 })

    await untilCached(a, m.key, m.companyId)
    await elsewhere.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [m.keyId])
    await vi.waitFor(() => expect(authenticate(a.ctx, m.key, m.companyId)).rejects.toMatchObject({ code: 'INVALID_TOKEN' }), { timeout: 5000 })

    await untilCached(a, otherKey, null)
    await elsewhere.query('UPDATE users SET is_active = false WHERE id = $1', [other.id])
    await vi.waitFor(() => expect(authenticate(a.ctx, otherKey, null)).rejects.toMatchObject({ code: 'INVALID_TOKEN' }), { timeout: 5000 })

    // A session issued a second before a password change is void afterwards.
    await untilCached(a, m.user.token, m.companyId)
    await elsewhere.query(`UPDATE users SET password_changed_at = now() + interval '2 seconds' WHERE id = $1`, [m.user.id])
    await vi.waitFor(() => expect(authenticate(a.ctx, m.user.token, m.companyId)).rejects.toMatchObject({ code: 'INVALID_TOKEN' }), { timeout: 5000 })
  })

  it('an answer looked up before a change is not kept', async () => {
    const m = await member()
    const a = authContext()
    await untilCached(a, m.key, m.companyId)
    const stale = await authenticate(a.ctx, m.key, m.companyId)
    const version = a.cache.version
    await elsewhere.query('UPDATE users SET name = name WHERE id = $1', [m.user.id])
    await vi.waitFor(() => expect(a.cache.version).not.toBe(version), { timeout: 5000 })
    a.cache.remember('some key', version, stale)
    expect(a.cache.get('some key')).toBeUndefined()
    a.cache.remember('some key', a.cache.version, stale)
    expect(a.cache.get('some key')).toBe(stale)
  })

  it('a cached key stops working when it expires', async () => {
    const m = await member()
    await t.ctx.db.query(`UPDATE api_keys SET expires_at = now() + interval '1500 milliseconds' WHERE id = $1`, [m.keyId])
    const a = authContext()
    await untilCached(a, m.key, m.companyId)
    await vi.waitFor(() => expect(authenticate(a.ctx, m.key, m.companyId)).rejects.toMatchObject({ code: 'INVALID_TOKEN' }), { timeout: 5000 })
  })

  it.runIf(TEST_DATABASE_URL)('keeps nothing while its listening connection is down, and listens again', async () => {
    const m = await member()
    const a = authContext()
    await untilCached(a, m.key, m.companyId)
    // Every listener on this database goes (other test files' too: they only lose their cache).
    await elsewhere.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND query LIKE 'LISTEN %'`,
    )
    await vi.waitFor(async () => expect(await statementsFor(a, m.key, m.companyId)).toBeGreaterThan(0), { timeout: 5000 })
    // No notification can arrive now, and nothing was kept: the change is seen at once.
    await elsewhere.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [m.keyId])
    await expect(authenticate(a.ctx, m.key, m.companyId)).rejects.toMatchObject({ code: 'INVALID_TOKEN' })
    // Listening again a second or so later, it caches again.
    await untilCached(a, m.user.token, m.companyId)
  })
})
