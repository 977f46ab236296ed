import { afterEach, describe, expect, it } from 'vitest'
import { call, type TestApp, testApp } from '../helpers.ts'

let t: TestApp | null = null
afterEach(async () => {
  await t?.close()
  t = null
})

describe('CORS', () => {
  it('allows any origin when ALLOWED_ORIGINS is unset, but tells none it may send credentials', async () => {
    t = await testApp()
    const r = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/companies',
      headers: { origin: 'https://anywhere.example', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization,x-custom' },
    })
    expect(r.statusCode).toBe(204)
    expect(r.headers['access-control-allow-origin']).toBe('https://anywhere.example')
    expect(r.headers['access-control-allow-credentials']).toBeUndefined()
    expect(String(r.headers['access-control-allow-methods'])).toBe('GET, POST, PUT, DELETE, OPTIONS, PATCH')
    expect(String(r.headers['access-control-allow-headers'])).toBe('authorization,x-custom')
  })

  it('exposes the rate-limit headers and only allows listed origins', async () => {
    t = await testApp({ allowedOrigins: ['https://app.example'] })
    const ok = await t.app.inject({ method: 'GET', url: '/', headers: { origin: 'https://app.example' } })
    expect(ok.headers['access-control-allow-origin']).toBe('https://app.example')
    expect(ok.headers['access-control-allow-credentials']).toBe('true')
    expect(ok.headers['access-control-expose-headers']).toBe('X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id')
    const other = await t.app.inject({ method: 'GET', url: '/', headers: { origin: 'https://evil.example' } })
    expect(other.headers['access-control-allow-origin']).toBeUndefined()
  })
})

describe('security headers', () => {
  it('every answer, the web app\'s pages included, carries a CSP with frame-ancestors \'none\', nosniff and a referrer policy', async () => {
    t = await testApp({ allowedOrigins: ['https://events.example'] })
    for (const [url, accept] of [['/', 'text/html'], ['/health', 'application/json'], ['/api/me', 'application/json']]) {
      const r = await t.app.inject({ method: 'GET', url, headers: { accept } })
      const csp = String(r.headers['content-security-policy'])
      expect(csp, url).toContain("frame-ancestors 'none'")
      expect(csp).toContain("default-src 'self'")
      expect(csp).toContain("object-src 'none'")
      expect(csp).toContain('connect-src \'self\' https://accounts.google.com/gsi/ https://events.example')
      expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/)
      expect(r.headers['x-content-type-options']).toBe('nosniff')
      expect(r.headers['referrer-policy']).toBe('same-origin')
    }
  })
})

describe('/metrics in production', () => {
  it('needs METRICS_TOKEN unless METRICS_PUBLIC=true', async () => {
    t = await testApp({ production: true })
    const closed = await call(t.app, 'GET', '/metrics')
    expect(closed.status).toBe(401)
    expect(closed.body.error).toMatchObject({ code: 'AUTH_REQUIRED', message: expect.stringContaining('METRICS_TOKEN') })
    await t.close()
    t = await testApp({ production: true, metricsPublic: true })
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200)
    await t.close()
    t = await testApp({ production: true, metricsToken: 'scrape-me' })
    expect((await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer scrape-me' } })).statusCode).toBe(200)
    // Outside production, as before: public without a token.
    await t.close()
    t = await testApp()
    expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200)
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
