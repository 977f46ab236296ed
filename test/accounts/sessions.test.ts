import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SignJWT } from 'jose'
import { sha256 } from '../../src/server/auth/tokens.ts'
import { call, createUser, type TestApp, testApp } from '../helpers.ts'
import { signUp } from './support.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

const secret = () => new TextEncoder().encode(t.ctx.config.jwtSecret)

describe('POST /api/refresh', () => {
  it('returns only a new access token and does not rotate the refresh token', async () => {
    const a = await signUp(t.app)
    const first = await call(t.app, 'POST', '/api/refresh', { body: { refresh_token: a.refresh } })
    expect(first.status).toBe(200)
    expect(Object.keys(first.body)).toEqual(['access_token'])
    expect((await call(t.app, 'GET', '/api/me', { token: first.body.access_token })).body.id).toBe(a.id)
    // The same refresh token keeps working.
    expect((await call(t.app, 'POST', '/api/refresh', { body: { refresh_token: a.refresh } })).status).toBe(200)
  })

  it('rejects malformed, wrong-type, revoked and expired refresh tokens with 401 INVALID_REFRESH_TOKEN', async () => {
    const a = await signUp(t.app)
    const expectRejected = async (refresh_token: string) => {
      const r = await call(t.app, 'POST', '/api/refresh', { body: { refresh_token } })
      expect(r.status).toBe(401)
      expect(r.body.error.code).toBe('INVALID_REFRESH_TOKEN')
    }
    await expectRejected('garbage')
    await expectRejected(a.access) // an access token is the wrong type
    // Correctly signed, right type, but never issued (not stored).
    const forged = await new SignJWT({ type: 'refresh' }).setProtectedHeader({ alg: 'HS256' }).setSubject(a.id)
      .setIssuedAt().setExpirationTime('1h').setJti('x').sign(secret())
    await expectRejected(forged)
    // Expired in the database.
    await t.ctx.db.query(`UPDATE refresh_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [sha256(a.refresh)])
    await expectRejected(a.refresh)
    // Revoked.
    const b = await signUp(t.app)
    await t.ctx.db.query('UPDATE refresh_tokens SET active = false WHERE token_hash = $1', [sha256(b.refresh)])
    await expectRejected(b.refresh)
  })

  it('rejects a refresh token whose JWT has expired', async () => {
    const a = await signUp(t.app)
    const past = Math.floor(Date.now() / 1000) - 3600
    const expired = await new SignJWT({ type: 'refresh' }).setProtectedHeader({ alg: 'HS256' }).setSubject(a.id)
      .setIssuedAt(past - 60).setExpirationTime(past).setJti('y').sign(secret())
    await t.ctx.db.query(
      `INSERT INTO refresh_tokens (user_id, token_hash, expires_at) VALUES ($1, $2, now() + interval '1 day')`,
      [a.id, sha256(expired)],
    )
    expect((await call(t.app, 'POST', '/api/refresh', { body: { refresh_token: expired } })).body.error.code).toBe('INVALID_REFRESH_TOKEN')
  })
})

describe('POST /api/logout', () => {
  it('with a refresh token ends only that session (204)', async () => {
    const a = await signUp(t.app)
    const second = (await call(t.app, 'POST', '/api/login', { body: { email: a.email, password: a.password } })).body
    const r = await call(t.app, 'POST', '/api/logout', { token: a.access, body: { refresh_token: a.refresh } })
    expect(r.status).toBe(204)
    expect(r.body).toBeNull()
    expect((await call(t.app, 'POST', '/api/refresh', { body: { refresh_token: a.refresh } })).status).toBe(401)
    expect((await call(t.app, 'POST', '/api/refresh', { body: { refresh_token: second.refresh_token } })).status).toBe(200)
    // Access tokens already issued stay valid until they expire.
    expect((await call(t.app, 'GET', '/api/me', { token: a.access })).status).toBe(200)
  })

  it('without a body ends every session of the user', async () => {
    const a = await signUp(t.app)
    const second = (await call(t.app, 'POST', '/api/login', { body: { email: a.email, password: a.password } })).body
    expect((await call(t.app, 'POST', '/api/logout', { token: a.access })).status).toBe(204)
    for (const refresh_token of [a.refresh, second.refresh_token]) {
      expect((await call(t.app, 'POST', '/api/refresh', { body: { refresh_token } })).status).toBe(401)
    }
  })

  it('an empty body sent as JSON counts as no body; malformed JSON is 422', async () => {
    const a = await signUp(t.app)
    const headers = { authorization: `Bearer ${a.access}`, 'content-type': 'application/json' }
    const bad = await t.app.inject({ method: 'POST', url: '/api/logout', headers, payload: '{"refresh_token":' })
    expect(bad.statusCode).toBe(422)
    expect(bad.json().error.code).toBe('VALIDATION_ERROR')
    const empty = await t.app.inject({ method: 'POST', url: '/api/logout', headers, payload: '' })
    expect(empty.statusCode).toBe(204)
    expect((await call(t.app, 'POST', '/api/refresh', { body: { refresh_token: a.refresh } })).status).toBe(401)
  })

  it("someone else's refresh token revokes nothing", async () => {
    const a = await signUp(t.app)
    const b = await signUp(t.app)
    expect((await call(t.app, 'POST', '/api/logout', { token: a.access, body: { refresh_token: b.refresh } })).status).toBe(204)
    expect((await call(t.app, 'POST', '/api/refresh', { body: { refresh_token: b.refresh } })).status).toBe(200)
    expect((await call(t.app, 'POST', '/api/refresh', { body: { refresh_token: a.refresh } })).status).toBe(200)
  })

  it('needs a credential, and a session rather than an API key', async () => {
    expect((await call(t.app, 'POST', '/api/logout')).body.error.code).toBe('AUTH_REQUIRED')
    const user = await createUser(t.ctx)
    const key = await call(t.app, 'POST', '/api/me/api-keys', { token: user.token, body: { name: 'ci' } })
    const r = await call(t.app, 'POST', '/api/logout', { token: key.body.key })
    expect(r.status).toBe(403)
    expect(r.body.error.code).toBe('SESSION_REQUIRED')
  })
})

describe('bearer credentials', () => {
  it('no header or a non-Bearer scheme is 401 AUTH_REQUIRED "Not authenticated"', async () => {
    const none = await call(t.app, 'GET', '/api/me')
    expect(none.status).toBe(401)
    expect(none.body.error).toEqual({ code: 'AUTH_REQUIRED', message: 'Not authenticated', details: {} })
    const basic = await call(t.app, 'GET', '/api/me', { headers: { authorization: 'Basic dXNlcjpwYXNz' } })
    expect(basic.body.error.code).toBe('AUTH_REQUIRED')
  })

  it('a refresh token used as a bearer is 401 INVALID_TOKEN', async () => {
    const a = await signUp(t.app)
    const r = await call(t.app, 'GET', '/api/me', { token: a.refresh })
    expect(r.status).toBe(401)
    expect(r.body.error).toEqual({ code: 'INVALID_TOKEN', message: 'Could not validate credentials', details: {} })
  })

  it('an expired or malformed access token is 401 INVALID_TOKEN', async () => {
    const user = await createUser(t.ctx)
    const past = Math.floor(Date.now() / 1000) - 60
    const expired = await new SignJWT({ type: 'access' }).setProtectedHeader({ alg: 'HS256' }).setSubject(user.id)
      .setIssuedAt(past - 1800).setExpirationTime(past).sign(secret())
    expect((await call(t.app, 'GET', '/api/me', { token: expired })).body.error.code).toBe('INVALID_TOKEN')
    expect((await call(t.app, 'GET', '/api/me', { token: 'a.b.c' })).body.error.code).toBe('INVALID_TOKEN')
  })

  it('changing JWT_SECRET_KEY invalidates access and refresh tokens but not API keys', async () => {
    const a = await signUp(t.app)
    const key = (await call(t.app, 'POST', '/api/me/api-keys', { token: a.access, body: { name: 'survives' } })).body.key
    const other = await testApp({ jwtSecret: 'a-different-secret-for-this-test' }, { db: t.ctx.db })
    try {
      expect((await call(other.app, 'GET', '/api/me', { token: a.access })).body.error.code).toBe('INVALID_TOKEN')
      expect((await call(other.app, 'POST', '/api/refresh', { body: { refresh_token: a.refresh } })).body.error.code).toBe(
        'INVALID_REFRESH_TOKEN',
      )
      const viaKey = await call(other.app, 'GET', '/api/me', { token: key })
      expect(viaKey.status).toBe(200)
      expect(viaKey.body.id).toBe(a.id)
    } finally {
      await other.close()
    }
  })
})

describe('/api/me', () => {
  it('GET answers the User record', async () => {
    const a = await signUp(t.app, 'Katherine Johnson')
    const r = await call(t.app, 'GET', '/api/me', { token: a.access })
    expect(r.status).toBe(200)
    expect(Object.keys(r.body).sort()).toEqual(['avatar_url', 'created_at', 'email', 'id', 'name', 'preferences'])
    expect(r.body).toMatchObject({ id: a.id, email: a.email, name: 'Katherine Johnson', avatar_url: null, preferences: {} })
  })

  it('PATCH changes only the fields present and clears avatar_url with null', async () => {
    const a = await signUp(t.app, 'Before')
    const url = 'https://images.example.test/me.png'
    const set = await call(t.app, 'PATCH', '/api/me', { token: a.access, body: { avatar_url: url } })
    expect(set.status).toBe(200)
    expect(set.body).toMatchObject({ name: 'Before', avatar_url: url })
    const renamed = await call(t.app, 'PATCH', '/api/me', { token: a.access, body: { name: 'After' } })
    expect(renamed.body).toMatchObject({ name: 'After', avatar_url: url })
    const cleared = await call(t.app, 'PATCH', '/api/me', { token: a.access, body: { avatar_url: null } })
    expect(cleared.body).toMatchObject({ name: 'After', avatar_url: null })
    expect((await call(t.app, 'GET', '/api/me', { token: a.access })).body).toMatchObject({ name: 'After', avatar_url: null })
  })

  it('PATCH rejects a blank name, an over-long name and a non-https avatar with 422', async () => {
    const user = await createUser(t.ctx)
    const cases = [
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'n'.repeat(256) }, 'name'],
      [{ avatar_url: 'http://example.test/a.png' }, 'avatar_url'],
      [{ avatar_url: 'https://' }, 'avatar_url'],
      [{ avatar_url: `https://example.test/${'a'.repeat(480)}` }, 'avatar_url'],
    ] as const
    for (const [body, field] of cases) {
      const r = await call(t.app, 'PATCH', '/api/me', { token: user.token, body })
      expect([field, r.status, r.body.error.code]).toEqual([field, 422, 'VALIDATION_ERROR'])
      expect(r.body.error.details.errors[0].loc).toEqual(['body', field])
    }
  })

  it('works with an API key', async () => {
    const user = await createUser(t.ctx)
    const key = (await call(t.app, 'POST', '/api/me/api-keys', { token: user.token, body: { name: 'k' } })).body.key
    const r = await call(t.app, 'PATCH', '/api/me', { token: key, body: { name: 'Renamed by key' } })
    expect(r.status).toBe(200)
    expect(r.body.name).toBe('Renamed by key')
  })
})
