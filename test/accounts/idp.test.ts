import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateKeyPair, SignJWT } from 'jose'
import { createIdpVerifier } from '../../src/domain/accounts/idp.ts'
import { userCommands } from '../../src/cli/admin-users.ts'
import { call, type TestApp, testApp, uniqueEmail } from '../helpers.ts'
import { callFrom, JwksServer, signUp, uniqueIp } from './support.ts'

const CLIENT_ID = 'shopfloor-web.apps.example.test'
const ISSUER = 'https://idp.example.test'

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>

let jwks: JwksServer
let signing: KeyPair
let t: TestApp

beforeAll(async () => {
  jwks = new JwksServer()
  await jwks.start()
  signing = await generateKeyPair('RS256')
  await jwks.publish('key-1', signing)
  t = await testApp({ idpClientId: CLIENT_ID, idpJwksUrl: jwks.url, idpIssuers: [ISSUER, 'idp.example.test'] })
})
afterAll(async () => {
  await t?.close()
  await jwks?.close()
})

interface TokenOptions {
  claims?: Record<string, unknown>
  key?: KeyPair['privateKey']
  kid?: string
  audience?: string
  issuer?: string
  expires?: number | string
}

function idToken(email: string, o: TokenOptions = {}) {
  return new SignJWT({ email, email_verified: true, name: 'Idp Person', ...o.claims })
    .setProtectedHeader({ alg: 'RS256', kid: o.kid ?? 'key-1' })
    .setSubject('idp-subject-1')
    .setIssuer(o.issuer ?? ISSUER)
    .setAudience(o.audience ?? CLIENT_ID)
    .setIssuedAt()
    .setExpirationTime(o.expires ?? '5m')
    .sign(o.key ?? signing.privateKey)
}

const signIn = (credential: string) => callFrom(t.app, uniqueIp(), 'POST', '/api/login/idp', { body: { credential } })

async function expectRejected(credential: string, reason: string) {
  const r = await signIn(credential)
  expect(r.status).toBe(401)
  expect(r.body.error).toMatchObject({ code: 'IDP_SIGN_IN_FAILED', details: { reason } })
}

describe('GET /api/auth/config', () => {
  it('tells the configured client id', async () => {
    expect((await call(t.app, 'GET', '/api/auth/config')).body).toEqual({ idp_client_id: CLIENT_ID, has_accounts: expect.any(Boolean) })
  })

  it('without a client id answers null and the sign-in is 404 IDP_DISABLED', async () => {
    const plain = await testApp({}, { db: t.ctx.db })
    try {
      expect((await call(plain.app, 'GET', '/api/auth/config')).body).toEqual({ idp_client_id: null, has_accounts: expect.any(Boolean) })
      const r = await call(plain.app, 'POST', '/api/login/idp', { body: { credential: await idToken(uniqueEmail()) } })
      expect(r.status).toBe(404)
      expect(r.body.error.code).toBe('IDP_DISABLED')
    } finally {
      await plain.close()
    }
  })
})

describe('POST /api/login/idp', () => {
  it('creates the account on first use and signs it in afterwards', async () => {
    const email = uniqueEmail('idp')
    const first = await signIn(await idToken(email.toUpperCase(), { claims: { picture: 'https://pics.example.test/p.png' } }))
    expect(first.status).toBe(200)
    expect(Object.keys(first.body).sort()).toEqual(['access_token', 'refresh_token', 'user'])
    expect(first.body.user).toMatchObject({ email, name: 'Idp Person', avatar_url: 'https://pics.example.test/p.png' })
    expect((await call(t.app, 'GET', '/api/me', { token: first.body.access_token })).body.id).toBe(first.body.user.id)
    const second = await signIn(await idToken(email))
    expect(second.body.user.id).toBe(first.body.user.id)
    // The account has no password: password sign-in fails like any wrong password.
    const pw = await call(t.app, 'POST', '/api/login', { body: { email, password: 'anything at all' } })
    expect(pw.body.error.code).toBe('INVALID_CREDENTIALS')
  })

  it('signs in an existing password account with the same email', async () => {
    const a = await signUp(t.app)
    const r = await signIn(await idToken(a.email))
    expect(r.status).toBe(200)
    expect(r.body.user.id).toBe(a.id)
  })

  it('accepts every configured issuer', async () => {
    expect((await signIn(await idToken(uniqueEmail(), { issuer: 'idp.example.test' }))).status).toBe(200)
  })

  it('rejects a bad signature', async () => {
    const other = await generateKeyPair('RS256')
    await expectRejected(await idToken(uniqueEmail(), { key: other.privateKey }), 'signature')
  })

  it('rejects a key id that is not in the key set', async () => {
    const other = await generateKeyPair('RS256')
    await expectRejected(await idToken(uniqueEmail(), { key: other.privateKey, kid: 'not-published' }), 'signature')
  })

  it('rejects a token not signed with RS256', async () => {
    const hs = await new SignJWT({ email: uniqueEmail(), email_verified: true })
      .setProtectedHeader({ alg: 'HS256', kid: 'key-1' }).setIssuer(ISSUER).setAudience(CLIENT_ID).setExpirationTime('5m')
      .sign(new TextEncoder().encode('a shared secret that is long enough'))
    await expectRejected(hs, 'signature')
  })

  it('rejects a wrong audience', async () => {
    await expectRejected(await idToken(uniqueEmail(), { audience: 'someone-else' }), 'audience')
  })

  it('rejects a wrong issuer', async () => {
    await expectRejected(await idToken(uniqueEmail(), { issuer: 'https://evil.example.test' }), 'issuer')
  })

  it('rejects an expired token', async () => {
    await expectRejected(await idToken(uniqueEmail(), { expires: Math.floor(Date.now() / 1000) - 120 }), 'expired')
  })

  it('rejects an unverified or missing email', async () => {
    await expectRejected(await idToken(uniqueEmail(), { claims: { email_verified: false } }), 'email_not_verified')
    await expectRejected(await idToken(uniqueEmail(), { claims: { email_verified: undefined } }), 'email_not_verified')
    await expectRejected(await idToken(undefined as unknown as string), 'email_not_verified')
  })

  it('rejects a credential that is not a token', async () => {
    await expectRejected('x'.repeat(40), 'malformed')
  })

  it('validates the credential length (20 to 4096)', async () => {
    expect((await signIn('x'.repeat(19))).status).toBe(422)
    expect((await signIn('x'.repeat(4097))).status).toBe(422)
  })

  it('a deactivated account gets 400 ACCOUNT_INACTIVE', async () => {
    const a = await signUp(t.app)
    expect(await userCommands.deactivate(t.ctx.db, [a.email], () => {})).toBe(0)
    const r = await signIn(await idToken(a.email))
    expect(r.status).toBe(400)
    expect(r.body.error.code).toBe('ACCOUNT_INACTIVE')
  })

  it('is limited to 10 requests per minute per client address', async () => {
    const ip = uniqueIp()
    const credential = 'x'.repeat(40)
    for (let i = 0; i < 10; i++) expect((await callFrom(t.app, ip, 'POST', '/api/login/idp', { body: { credential } })).status).toBe(401)
    const limited = await callFrom(t.app, ip, 'POST', '/api/login/idp', { body: { credential } })
    expect(limited.status).toBe(429)
    expect(limited.body.error.code).toBe('RATE_LIMITED')
  })
})

describe('the key set', () => {
  it('is fetched once and then cached', async () => {
    const server = new JwksServer()
    await server.start()
    await server.publish('key-1', signing)
    const verify = createIdpVerifier({ clientId: CLIENT_ID, jwksUrl: server.url, issuers: [ISSUER] })
    try {
      for (let i = 0; i < 3; i++) await verify(await idToken(uniqueEmail()))
      expect(server.fetches).toBe(1)
    } finally {
      await server.close()
    }
  })

  it('that cannot be fetched makes the sign-in fail as keys_unavailable', async () => {
    const server = new JwksServer()
    await server.start()
    await server.close() // nothing listens at this address any more
    const verify = createIdpVerifier({ clientId: CLIENT_ID, jwksUrl: server.url, issuers: [ISSUER] })
    await expect(verify(await idToken(uniqueEmail()))).rejects.toMatchObject({
      code: 'IDP_SIGN_IN_FAILED',
      status: 401,
      details: { reason: 'keys_unavailable' },
    })
  })

  it('is fetched again when a token names a key id it does not know (key rotation)', async () => {
    const server = new JwksServer()
    await server.start()
    await server.publish('key-1', signing)
    const verify = createIdpVerifier({ clientId: CLIENT_ID, jwksUrl: server.url, issuers: [ISSUER] }, { cooldownMs: 0 })
    try {
      await verify(await idToken(uniqueEmail()))
      const rotated = await generateKeyPair('RS256')
      await server.publish('key-2', rotated)
      const email = uniqueEmail('rotated')
      expect((await verify(await idToken(email, { key: rotated.privateKey, kid: 'key-2' }))).email).toBe(email)
      expect(server.fetches).toBe(2)
    } finally {
      await server.close()
    }
  })
})
