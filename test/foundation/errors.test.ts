import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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

  it('known path with a wrong method is 405 METHOD_NOT_ALLOWED', async () => {
    const r = await call(t.app, 'DELETE', '/health')
    expect(r.status).toBe(405)
    expect(r.body.error.code).toBe('METHOD_NOT_ALLOWED')
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
