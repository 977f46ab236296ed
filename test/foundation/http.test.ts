import { afterEach, describe, expect, it } from 'vitest'
import { call, type TestApp, testApp } from '../helpers.ts'

let t: TestApp | null = null
afterEach(async () => {
  await t?.close()
  t = null
})

describe('CORS', () => {
  it('allows any origin with credentials when ALLOWED_ORIGINS is unset', async () => {
    t = await testApp()
    const r = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/companies',
      headers: { origin: 'https://anywhere.example', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization,x-custom' },
    })
    expect(r.statusCode).toBe(204)
    expect(r.headers['access-control-allow-origin']).toBe('https://anywhere.example')
    expect(r.headers['access-control-allow-credentials']).toBe('true')
    expect(String(r.headers['access-control-allow-methods'])).toBe('GET, POST, PUT, DELETE, OPTIONS, PATCH')
    expect(String(r.headers['access-control-allow-headers'])).toBe('authorization,x-custom')
  })

  it('exposes the rate-limit headers and only allows listed origins', async () => {
    t = await testApp({ allowedOrigins: ['https://app.example'] })
    const ok = await t.app.inject({ method: 'GET', url: '/', headers: { origin: 'https://app.example' } })
    expect(ok.headers['access-control-allow-origin']).toBe('https://app.example')
    expect(ok.headers['access-control-expose-headers']).toBe('X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id')
    const other = await t.app.inject({ method: 'GET', url: '/', headers: { origin: 'https://evil.example' } })
    expect(other.headers['access-control-allow-origin']).toBeUndefined()
  })
})

describe('ALLOWED_HOSTS', () => {
  it('rejects a Host header that is not listed, in the envelope', async () => {
    t = await testApp({ allowedHosts: ['api.example'] })
    const bad = await call(t.app, 'GET', '/', { headers: { host: 'other.example' } })
    expect(bad.status).toBe(400)
    expect(bad.body.error.code).toBe('HTTP_ERROR')
    const good = await call(t.app, 'GET', '/', { headers: { host: 'api.example:8000' } })
    expect(good.status).toBe(200)
  })
})

describe('rate limits', () => {
  it('GET /api/rate-limit-test allows 10 per minute, then 429 RATE_LIMITED without headers by default', async () => {
    t = await testApp()
    for (let i = 0; i < 10; i++) expect((await call(t.app, 'GET', '/api/rate-limit-test')).status).toBe(200)
    const r = await call(t.app, 'GET', '/api/rate-limit-test')
    expect(r.status).toBe(429)
    expect(r.body.error).toEqual({ code: 'RATE_LIMITED', message: 'Too many requests: 10 per 1 minute', details: {} })
    expect(r.headers['x-ratelimit-limit']).toBeUndefined()
    expect(r.headers['retry-after']).toBeUndefined()
  })

  it('sends the headers on every response of a limited route when RATELIMIT_HEADERS_ENABLED=true', async () => {
    t = await testApp({ rateLimitHeaders: true })
    const first = await call(t.app, 'GET', '/api/rate-limit-test')
    expect(first.headers['x-ratelimit-limit']).toBe('10')
    expect(first.headers['x-ratelimit-remaining']).toBe('9')
    for (let i = 0; i < 9; i++) await call(t.app, 'GET', '/api/rate-limit-test')
    const limited = await call(t.app, 'GET', '/api/rate-limit-test')
    expect(limited.status).toBe(429)
    expect(limited.headers['retry-after']).toBeDefined()
    expect(limited.headers['x-ratelimit-remaining']).toBe('0')
    const unlimited = await call(t.app, 'GET', '/')
    expect(unlimited.headers['x-ratelimit-limit']).toBeUndefined()
  })

  it('GET /health allows 100 per minute per client address', async () => {
    t = await testApp()
    for (let i = 0; i < 100; i++) expect((await call(t.app, 'GET', '/health')).status).toBe(200)
    expect((await call(t.app, 'GET', '/health')).status).toBe(429)
    // another client address has its own budget
    const other = await t.app.inject({ method: 'GET', url: '/health', remoteAddress: '10.9.8.7' })
    expect(other.statusCode).toBe(200)
  })
})

describe('interactive docs', () => {
  it('are absent unless DEBUG=true', async () => {
    t = await testApp()
    expect((await call(t.app, 'GET', '/openapi.json')).status).toBe(404)
    expect((await call(t.app, 'GET', '/docs')).status).toBe(404)
    expect((await call(t.app, 'GET', '/')).body.docs).toBeNull()
  })

  it('serve the OpenAPI document generated from the routes with DEBUG=true', async () => {
    t = await testApp({ debug: true })
    const doc = await call(t.app, 'GET', '/openapi.json')
    expect(doc.status).toBe(200)
    expect(doc.body.openapi).toMatch(/^3\./)
    expect(doc.body.info.version).toBe('2.1.0')
    expect(Object.keys(doc.body.paths)).toContain('/health')
    expect(Object.keys(doc.body.paths)).toContain('/api/companies/{company_id}/activity')
    const ui = await t.app.inject({ method: 'GET', url: '/docs/' })
    expect(ui.statusCode).toBe(200)
    expect(ui.headers['content-type']).toMatch(/text\/html/)
    expect((await call(t.app, 'GET', '/')).body.docs).toBe('/docs')
  })
})
