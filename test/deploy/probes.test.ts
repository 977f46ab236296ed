// The probes of load balancers and orchestrators: GET /livez and GET /readyz answer without a
// rate limit (a proxy checks every instance every second or two from one address), and /readyz
// says 503 while the database is not ready; /health keeps SPEC.md's 100 a minute.
import { afterEach, describe, expect, it } from 'vitest'
import { call, type TestApp, testApp, testDb } from '../helpers.ts'

let t: TestApp | undefined
afterEach(async () => {
  await t?.close()
  t = undefined
})

describe('GET /livez and GET /readyz', () => {
  it('answer 200 to 300 calls a minute from one address, where /health stops at 100', async () => {
    t = await testApp()
    for (let i = 0; i < 150; i++) {
      const live = await call(t.app, 'GET', '/livez')
      expect(live.status).toBe(200)
      expect(live.body).toEqual({ status: 'ok' })
      expect(live.headers['x-ratelimit-limit']).toBeUndefined()
      const ready = await call(t.app, 'GET', '/readyz')
      expect(ready.status).toBe(200)
      expect(ready.body).toEqual({ status: 'ok' })
    }
    for (let i = 0; i < 100; i++) expect((await call(t.app, 'GET', '/health')).status).toBe(200)
    const limited = await call(t.app, 'GET', '/health')
    expect(limited.status).toBe(429)
    expect(limited.body.error.code).toBe('RATE_LIMITED')
    // the probes still answer once /health is limited
    expect((await call(t.app, 'GET', '/readyz')).status).toBe(200)
    expect((await call(t.app, 'GET', '/livez')).status).toBe(200)
  })

  it('/readyz is 503 SERVICE_UNAVAILABLE while the migrations run, after they failed, and when the database does not answer; /livez stays 200', async () => {
    const db = await testDb()
    t = await testApp({}, { db })
    try {
      for (const [state, words] of [['starting', /starting/], ['failed', /could not initialise/]] as const) {
        t.ctx.dbState = state
        const ready = await call(t.app, 'GET', '/readyz')
        expect(ready.status).toBe(503)
        expect(ready.body.error.code).toBe('SERVICE_UNAVAILABLE')
        expect(ready.body.error.message).toMatch(words)
        expect((await call(t.app, 'GET', '/livez')).status).toBe(200)
      }
      t.ctx.dbState = 'ready'
      expect((await call(t.app, 'GET', '/readyz')).status).toBe(200)
      await db.close()
      const gone = await call(t.app, 'GET', '/readyz')
      expect(gone.status).toBe(503)
      expect(gone.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: 'The database does not answer' })
      expect((await call(t.app, 'GET', '/livez')).status).toBe(200)
    } finally {
      t.ctx.dbState = 'ready'
    }
  })

  it('are in the OpenAPI document as public operations', async () => {
    t = await testApp({ debug: true })
    const doc = (await call(t.app, 'GET', '/openapi.json')).body
    for (const path of ['/livez', '/readyz']) {
      expect(doc.paths[path].get.security).toEqual([])
      expect(Object.keys(doc.paths[path].get.responses)).toEqual(expect.arrayContaining(['200', '503']))
    }
  })
})
