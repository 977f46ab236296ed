import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCompany, hireAgent } from '../fixtures.ts'
import { call, createUser, type TestApp, testApp } from '../helpers.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

describe('service routes', () => {
  it('GET / answers the service information', async () => {
    const r = await call(t.app, 'GET', '/')
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ service: 'shopfloor', version: '2.1.0', environment: 'test', docs: null })
    expect(r.headers['x-process-time']).toMatch(/^\d+\.\d+$/)
  })

  it('GET /health is healthy with the database up', async () => {
    const r = await call(t.app, 'GET', '/health')
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ status: 'healthy', service: 'shopfloor', version: '2.1.0' })
    expect(typeof r.body.timestamp).toBe('number')
  })

  it('GET /api/rate-limit-test is public', async () => {
    const r = await call(t.app, 'GET', '/api/rate-limit-test')
    expect(r).toMatchObject({ status: 200, body: { status: 'ok' } })
  })
})

describe('error envelope', () => {
  it('unknown route is 404 NOT_FOUND "Not Found"', async () => {
    const r = await call(t.app, 'GET', '/api/no-such-thing')
    expect(r.status).toBe(404)
    expect(r.body).toEqual({ error: { code: 'NOT_FOUND', message: 'Not Found', details: {} } })
  })

  it('known path with a wrong method is 405 METHOD_NOT_ALLOWED, with a trailing slash too', async () => {
    const r = await call(t.app, 'DELETE', '/health')
    expect(r.status).toBe(405)
    expect(r.body.error.code).toBe('METHOD_NOT_ALLOWED')
    expect((await call(t.app, 'GET', '/health/')).status).toBe(200)
    expect((await call(t.app, 'DELETE', '/health/')).body.error.code).toBe('METHOD_NOT_ALLOWED')
  })

  it('an error raised before routing is in the envelope and carries X-Process-Time', async () => {
    const r = await call(t.app, 'GET', '/api/%zz')
    expect(r.status).toBe(400)
    expect(r.body.error.code).toBe('HTTP_ERROR')
    expect(r.headers['x-process-time']).toMatch(/^\d+\.\d+$/)
  })

  it('a company path without a credential is 401 AUTH_REQUIRED', async () => {
    const r = await call(t.app, 'GET', '/api/companies/5f8a2b6e-0000-4000-8000-000000000000/activity')
    expect(r.status).toBe(401)
    expect(r.body.error).toEqual({ code: 'AUTH_REQUIRED', message: 'Not authenticated', details: {} })
  })

  it('a garbage bearer is 401 INVALID_TOKEN', async () => {
    const r = await call(t.app, 'GET', '/api/companies/5f8a2b6e-0000-4000-8000-000000000000/activity', { token: 'nope' })
    expect(r.status).toBe(401)
    expect(r.body.error).toMatchObject({ code: 'INVALID_TOKEN', message: 'Could not validate credentials' })
  })

  it('a non-member company is 404 Company not found', async () => {
    const user = await createUser(t.ctx)
    const r = await call(t.app, 'GET', '/api/companies/5f8a2b6e-0000-4000-8000-000000000000/activity', { token: user.token })
    expect(r.status).toBe(404)
    expect(r.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Company not found' })
  })

  it('an invalid company id in the path is 422 naming the path field', async () => {
    const user = await createUser(t.ctx)
    const r = await call(t.app, 'GET', '/api/companies/not-a-uuid/activity', { token: user.token })
    expect(r.status).toBe(422)
    expect(r.body.error.code).toBe('VALIDATION_ERROR')
    expect(r.body.error.message).toMatch(/^company_id: /)
    expect(r.body.error.details.errors[0].loc).toEqual(['path', 'company_id'])
  })
})

describe('JSON bodies', () => {
  const json = { 'content-type': 'application/json' }

  it('an empty body sent as JSON is no body: a route without one answers as usual', async () => {
    const user = await createUser(t.ctx)
    const company = await createCompany(t.app, user.token)
    const agent = await hireAgent(t.app, user.token, company.id)
    const r = await call(t.app, 'POST', `/api/companies/${company.id}/agents/${agent.id}/pause`, { token: user.token, headers: json, body: '' })
    expect(r.status).toBe(200)
    expect(r.body.status).toBe('paused')
  })

  it('a route that needs a body refuses an empty one as a missing object', async () => {
    const r = await call(t.app, 'POST', '/api/login', { headers: json, body: '' })
    expect(r.status).toBe(422)
    expect(r.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Input should be a valid object' })
    expect(r.body.error.details.errors[0].loc).toEqual(['body'])
  })

  it('malformed JSON is 422 at the body, the message without a field path', async () => {
    const r = await call(t.app, 'POST', '/api/login', { headers: json, body: '{"email":' })
    expect(r.status).toBe(422)
    expect(r.body.error.code).toBe('VALIDATION_ERROR')
    expect(r.body.error.message).toMatch(/^JSON decode error: /)
    expect(r.body.error.details.errors[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' })
  })
})
