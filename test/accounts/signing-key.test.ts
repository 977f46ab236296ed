import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SignJWT } from 'jose'
import { signAccessToken } from '../../src/server/auth/tokens.ts'
import { call, createUser, type TestApp, testApp } from '../helpers.ts'

// Without JWT_SECRET_KEY the server signs with a random key kept in its database, never with a
// constant from the source: a token made with the old development constant is refused, and every
// instance on one database (or the same one after a restart) accepts the others' tokens.
let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

describe('the signing key without JWT_SECRET_KEY', () => {
  it('refuses a token signed with the development constant', async () => {
    const user = await createUser(t.ctx)
    const forged = await new SignJWT({ type: 'access' }).setProtectedHeader({ alg: 'HS256' }).setSubject(user.id)
      .setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode('shopfloor-development-secret-do-not-use-in-production'))
    const r = await call(t.app, 'GET', '/api/me', { token: forged })
    expect(r.status).toBe(401)
    expect(r.body.error.code).toBe('INVALID_TOKEN')
    expect((await call(t.app, 'GET', '/api/me', { token: user.token })).status).toBe(200)
  })

  it('is kept in the database: another instance on it accepts this one\'s tokens', async () => {
    expect(t.ctx.config.jwtSecretKept).toBe(true)
    const kept = await t.ctx.db.one<{ secret: string }>(`SELECT secret FROM signing_keys WHERE name = 'jwt'`)
    expect(kept!.secret).toBe(t.ctx.config.jwtSecret)
    expect(kept!.secret.length).toBeGreaterThanOrEqual(43)
    const user = await createUser(t.ctx)
    const other = await testApp({}, { db: t.ctx.db })
    try {
      expect(other.ctx.config.jwtSecret).toBe(t.ctx.config.jwtSecret)
      const me = await call(other.app, 'GET', '/api/me', { token: user.token })
      expect(me.status).toBe(200)
      expect(me.body.id).toBe(user.id)
      expect((await call(t.app, 'GET', '/api/me', { token: signAccessToken(other.ctx.config.jwtSecret, user.id) })).status).toBe(200)
    } finally {
      await other.close()
    }
  })
})
