import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeJwt } from 'jose'
import { sha256 } from '../../src/server/auth/tokens.ts'
import { call, privateApp, type TestApp, testApp, uniqueEmail } from '../helpers.ts'
import { signUp } from './support.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

describe('POST /api/register', () => {
  it('creates the account and answers 201 with the user and a session', async () => {
    const email = uniqueEmail('Reg').replace('reg', 'Reg')
    const r = await call(t.app, 'POST', '/api/register', {
      body: { email, password: 'password123', name: 'Grace Hopper', company: 'Navy' },
    })
    expect(r.status).toBe(201)
    expect(Object.keys(r.body).sort()).toEqual(['access_token', 'refresh_token', 'user'])
    expect(r.body.user).toEqual({
      id: expect.any(String),
      email: email.toLowerCase(),
      name: 'Grace Hopper',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      avatar_url: null,
      preferences: {},
    })
    const row = await t.ctx.db.one('SELECT password_hash, organization FROM users WHERE id = $1', [r.body.user.id])
    expect(row!.organization).toBe('Navy')
    // bcrypt, never the password itself, at the configured cost (bcrypt's minimum in tests).
    expect(row!.password_hash).toMatch(/^\$2[aby]\$04\$/)
    // The refresh token is stored only as its SHA-256, active, expiring in 7 days.
    const stored = await t.ctx.db.one(
      `SELECT active, round(extract(epoch FROM expires_at - now()) / 3600) AS hours FROM refresh_tokens WHERE token_hash = $1`,
      [sha256(r.body.refresh_token)],
    )
    expect(stored).toEqual({ active: true, hours: 168 })
  })

  it('hashes at cost 12 outside the test environment, and signs in with that hash', async () => {
    const real = await testApp({ environment: 'development', passwordCost: 12 })
    try {
      const email = uniqueEmail('cost')
      const r = await call(real.app, 'POST', '/api/register', { body: { email, password: 'password123', name: 'Cost' } })
      expect(r.status).toBe(201)
      const row = await real.ctx.db.one('SELECT password_hash FROM users WHERE id = $1', [r.body.user.id])
      expect(row!.password_hash).toMatch(/^\$2[aby]\$12\$/)
      expect((await call(real.app, 'POST', '/api/login', { body: { email, password: 'password123' } })).status).toBe(200)
    } finally {
      await real.close()
    }
  })

  it('issues tokens with exactly the claims of the spec', async () => {
    const a = await signUp(t.app)
    const access = decodeJwt(a.access)
    expect(Object.keys(access).sort()).toEqual(['exp', 'iat', 'sub', 'type'])
    expect(access).toMatchObject({ sub: a.id, type: 'access' })
    expect(access.exp! - access.iat!).toBe(30 * 60)
    const refresh = decodeJwt(a.refresh)
    expect(Object.keys(refresh).sort()).toEqual(['exp', 'iat', 'jti', 'sub', 'type'])
    expect(refresh).toMatchObject({ sub: a.id, type: 'refresh' })
    expect(refresh.exp! - refresh.iat!).toBe(7 * 24 * 3600)
  })

  it('rejects an existing email (any case) with 409 USER_EXISTS and the email in details', async () => {
    const a = await signUp(t.app)
    const r = await call(t.app, 'POST', '/api/register', { body: { email: a.email.toUpperCase(), password: 'password123', name: 'X' } })
    expect(r.status).toBe(409)
    expect(r.body.error).toMatchObject({ code: 'USER_EXISTS', details: { email: a.email.toUpperCase() } })
  })

  it('validates every field and reports every problem', async () => {
    const r = await call(t.app, 'POST', '/api/register', {
      body: { email: 'not-an-email', password: 'short', name: '', company: 'x'.repeat(256) },
    })
    expect(r.status).toBe(422)
    expect(r.body.error.code).toBe('VALIDATION_ERROR')
    const fields = r.body.error.details.errors.map((e: any) => e.loc.join('.'))
    expect(fields).toEqual(expect.arrayContaining(['body.email', 'body.password', 'body.name', 'body.company']))
  })

  it('bounds: password 8 to 128, name up to 255', async () => {
    const base = { email: uniqueEmail(), name: 'N' }
    expect((await call(t.app, 'POST', '/api/register', { body: { ...base, password: 'x'.repeat(129) } })).status).toBe(422)
    expect((await call(t.app, 'POST', '/api/register', { body: { ...base, password: 'x'.repeat(8), name: 'n'.repeat(256) } })).status).toBe(422)
    expect((await call(t.app, 'POST', '/api/register', { body: { ...base, password: 'x'.repeat(8), name: 'n'.repeat(255) } })).status).toBe(201)
  })
})

describe('a fresh instance', () => {
  it('says it has no account yet until the first sign-up (the web app opens on sign-up then)', async () => {
    // A database of its own: every other test's users would be there.
    const fresh = await privateApp()
    try {
      expect((await call(fresh.app, 'GET', '/api/auth/config')).body).toMatchObject({ has_accounts: false })
      await signUp(fresh.app)
      expect((await call(fresh.app, 'GET', '/api/auth/config')).body).toMatchObject({ has_accounts: true })
    } finally {
      await fresh.close()
    }
  })
})

describe('POST /api/login', () => {
  it('signs in with email (any case) and password', async () => {
    const a = await signUp(t.app)
    const r = await call(t.app, 'POST', '/api/login', { body: { email: a.email.toUpperCase(), password: a.password } })
    expect(r.status).toBe(200)
    expect(Object.keys(r.body).sort()).toEqual(['access_token', 'refresh_token', 'user'])
    expect(r.body.user.id).toBe(a.id)
    const me = await call(t.app, 'GET', '/api/me', { token: r.body.access_token })
    expect(me.body.id).toBe(a.id)
  })

  it('answers an unknown email and a wrong password identically', async () => {
    const a = await signUp(t.app)
    const wrong = await call(t.app, 'POST', '/api/login', { body: { email: a.email, password: 'wrong password' } })
    const unknown = await call(t.app, 'POST', '/api/login', { body: { email: uniqueEmail('nobody'), password: 'wrong password' } })
    expect(wrong.status).toBe(401)
    expect(unknown).toEqual({ ...wrong, headers: unknown.headers })
    expect(wrong.body.error).toEqual({ code: 'INVALID_CREDENTIALS', message: expect.any(String), details: {} })
  })

  it('a successful sign-in resets the failure count', async () => {
    const a = await signUp(t.app)
    for (let i = 0; i < 4; i++) {
      expect((await call(t.app, 'POST', '/api/login', { body: { email: a.email, password: 'nope-nope' } })).status).toBe(401)
    }
    expect((await call(t.app, 'POST', '/api/login', { body: { email: a.email, password: a.password } })).status).toBe(200)
    const row = await t.ctx.db.one('SELECT failed_logins FROM users WHERE id = $1', [a.id])
    expect(row!.failed_logins).toBe(0)
    // Four more failures do not lock: the count started again from zero.
    for (let i = 0; i < 4; i++) await call(t.app, 'POST', '/api/login', { body: { email: a.email, password: 'nope-nope' } })
    expect((await call(t.app, 'POST', '/api/login', { body: { email: a.email, password: a.password } })).status).toBe(200)
  })
})

describe('lockout', () => {
  it('five failures lock for 30 minutes; the fifth is still 401; then 400 even with the right password', async () => {
    const a = await signUp(t.app)
    const attempt = (password: string) => call(t.app, 'POST', '/api/login', { body: { email: a.email, password } })
    for (let i = 1; i <= 5; i++) {
      const r = await attempt('wrong-password')
      expect([i, r.status, r.body.error.code]).toEqual([i, 401, 'INVALID_CREDENTIALS'])
    }
    const locked = await attempt(a.password)
    expect(locked.status).toBe(400)
    expect(locked.body.error.code).toBe('ACCOUNT_LOCKED')
    expect((await attempt('wrong-password')).body.error.code).toBe('ACCOUNT_LOCKED')
    const row = await t.ctx.db.one(
      `SELECT round(extract(epoch FROM locked_until - now()) / 60) AS minutes FROM users WHERE id = $1`,
      [a.id],
    )
    expect(row!.minutes).toBe(30)
  })

  it('after the lock expires the right password works and the count starts from zero', async () => {
    const a = await signUp(t.app)
    const attempt = (password: string) => call(t.app, 'POST', '/api/login', { body: { email: a.email, password } })
    for (let i = 0; i < 5; i++) await attempt('wrong-password')
    expect((await attempt(a.password)).body.error.code).toBe('ACCOUNT_LOCKED')
    await t.ctx.db.query(`UPDATE users SET locked_until = now() - interval '1 second' WHERE id = $1`, [a.id])
    // One failure after the lock is the first of a new count: no relock.
    expect((await attempt('wrong-password')).body.error.code).toBe('INVALID_CREDENTIALS')
    const row = await t.ctx.db.one('SELECT failed_logins, locked_until FROM users WHERE id = $1', [a.id])
    expect(row).toEqual({ failed_logins: 1, locked_until: null })
    expect((await attempt(a.password)).status).toBe(200)
  })

  it('simultaneous failures each count', async () => {
    const a = await signUp(t.app)
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => call(t.app, 'POST', '/api/login', { body: { email: a.email, password: 'wrong-password' } })),
    )
    expect(answers.map((r) => r.body.error.code)).toEqual(Array(5).fill('INVALID_CREDENTIALS'))
    const login = await call(t.app, 'POST', '/api/login', { body: { email: a.email, password: a.password } })
    expect(login.body.error.code).toBe('ACCOUNT_LOCKED')
  })

  it('an expired lock followed by five failures locks again', async () => {
    const a = await signUp(t.app)
    const attempt = (password: string) => call(t.app, 'POST', '/api/login', { body: { email: a.email, password } })
    for (let i = 0; i < 5; i++) await attempt('wrong-password')
    await t.ctx.db.query(`UPDATE users SET locked_until = now() - interval '1 second' WHERE id = $1`, [a.id])
    for (let i = 1; i <= 5; i++) expect((await attempt('wrong-password')).status).toBe(401)
    expect((await attempt(a.password)).body.error.code).toBe('ACCOUNT_LOCKED')
  })
})

describe('long passwords', () => {
  it('every character of a 128-character password counts (bcrypt alone would stop at 72 bytes)', async () => {
    const email = uniqueEmail('long')
    const password = 'p'.repeat(100) + 'A'.repeat(28)
    expect((await call(t.app, 'POST', '/api/register', { body: { email, password, name: 'Long' } })).status).toBe(201)
    const samePrefix = 'p'.repeat(100) + 'B'.repeat(28)
    expect((await call(t.app, 'POST', '/api/login', { body: { email, password: samePrefix } })).status).toBe(401)
    expect((await call(t.app, 'POST', '/api/login', { body: { email, password } })).status).toBe(200)
  })
})
