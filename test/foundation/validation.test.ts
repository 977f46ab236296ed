import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../../src/api/app.ts'
import { AppError } from '../../src/server/errors.ts'
import { createLogger } from '../../src/server/logger.ts'
import { createContext } from '../../src/server/start.ts'
import { call, testConfig, testDb } from '../helpers.ts'

// The validation and error layer, exercised through probe routes added to a real app.
async function appWithProbes(environment: string) {
  const config = testConfig({ environment, production: environment === 'production' })
  const db = await testDb()
  const ctx = await createContext(config, createLogger(config), { db })
  const app = await buildApp(ctx)
  app.post(
    '/api/probe/:item_id',
    {
      schema: {
        params: { type: 'object', properties: { item_id: { type: 'string', format: 'uuid' } } },
        querystring: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 10 } } },
        body: {
          type: 'object',
          required: ['name', 'count'],
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 5 },
            count: { type: 'integer', minimum: 0 },
            nested: { type: 'object', properties: { flag: { type: 'boolean' } } },
          },
        },
      },
    },
    async (request) => ({ body: request.body, query: request.query }),
  )
  app.get('/api/probe-crash', async () => {
    throw new Error('kaboom')
  })
  app.get('/api/probe-domain', async () => {
    throw new AppError('ORG_CYCLE', 'An agent cannot report to one of its own reports')
  })
  await app.ready()
  return { app, close: async () => (await app.close(), await db.close()) }
}

const ID = '5f8a2b6e-0000-4000-8000-000000000001'
let dev: { app: FastifyInstance; close(): Promise<void> }
let prod: { app: FastifyInstance; close(): Promise<void> }
beforeAll(async () => {
  dev = await appWithProbes('development')
  prod = await appWithProbes('production')
})
afterAll(async () => {
  await dev?.close()
  await prod?.close()
})

describe('request validation', () => {
  it('accepts a valid request', async () => {
    const r = await call(dev.app, 'POST', `/api/probe/${ID}?limit=3`, { body: { name: 'abc', count: 2 } })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ body: { name: 'abc', count: 2 }, query: { limit: 3 } })
  })

  it('lists every problem, the first in the message as "<field path>: <message>"', async () => {
    const r = await call(dev.app, 'POST', `/api/probe/${ID}`, { body: { name: '', nested: { flag: 'yes' } } })
    expect(r.status).toBe(422)
    expect(r.body.error.code).toBe('VALIDATION_ERROR')
    const locs = r.body.error.details.errors.map((e: any) => e.loc)
    expect(locs).toEqual(expect.arrayContaining([['body', 'count'], ['body', 'name'], ['body', 'nested', 'flag']]))
    expect(r.body.error.details.errors).toHaveLength(3)
    const first = r.body.error.details.errors[0]
    expect(r.body.error.message).toBe(`${first.loc.slice(1).join('.')}: ${first.message}`)
    for (const e of r.body.error.details.errors) expect(e).toMatchObject({ loc: expect.any(Array), message: expect.any(String), type: expect.any(String) })
  })

  it('does not coerce JSON body types', async () => {
    const r = await call(dev.app, 'POST', `/api/probe/${ID}`, { body: { name: 'abc', count: '2' } })
    expect(r.status).toBe(422)
    expect(r.body.error.message).toBe('count: Input should be a valid integer')
  })

  it('coerces query strings and checks their bounds', async () => {
    const r = await call(dev.app, 'POST', `/api/probe/${ID}?limit=11`, { body: { name: 'abc', count: 1 } })
    expect(r.status).toBe(422)
    expect(r.body.error.details.errors[0].loc).toEqual(['query', 'limit'])
  })

  it('rejects an invalid UUID in the path', async () => {
    const r = await call(dev.app, 'POST', '/api/probe/nope', { body: { name: 'abc', count: 1 } })
    expect(r.status).toBe(422)
    expect(r.body.error.details.errors[0]).toMatchObject({ loc: ['path', 'item_id'], type: 'uuid_parsing' })
  })

  it('answers malformed JSON with 422 in the envelope, not 500', async () => {
    const r = await call(dev.app, 'POST', `/api/probe/${ID}`, { body: '{"name": ', headers: { 'content-type': 'application/json' } })
    expect(r.status).toBe(422)
    expect(r.body.error.code).toBe('VALIDATION_ERROR')
  })

  it('answers an unsupported content type in the envelope', async () => {
    const r = await call(dev.app, 'POST', `/api/probe/${ID}`, { body: 'name=abc', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(r.status).toBe(415)
    expect(r.body.error.code).toBe('HTTP_ERROR')
  })

  it('answers malformed percent-encoding in the URL in the envelope', async () => {
    const r = await call(dev.app, 'GET', '/api/probe%zz')
    expect(r.status).toBeGreaterThanOrEqual(400)
    expect(r.status).toBeLessThan(500)
    expect(r.body.error.code).toMatch(/^(HTTP_ERROR|NOT_FOUND)$/)
  })
})

describe('error envelope for failures', () => {
  it('domain errors keep their code and status', async () => {
    const r = await call(dev.app, 'GET', '/api/probe-domain')
    expect(r.status).toBe(400)
    expect(r.body).toEqual({ error: { code: 'ORG_CYCLE', message: 'An agent cannot report to one of its own reports', details: {} } })
  })

  it('an unhandled exception is 500 INTERNAL_ERROR with the exception text outside production', async () => {
    const r = await call(dev.app, 'GET', '/api/probe-crash')
    expect(r.status).toBe(500)
    expect(r.body.error).toEqual({ code: 'INTERNAL_ERROR', message: 'An unexpected error occurred', details: { error: 'kaboom' } })
  })

  it('hides the exception text when ENVIRONMENT is production', async () => {
    const r = await call(prod.app, 'GET', '/api/probe-crash')
    expect(r.status).toBe(500)
    expect(r.body.error).toEqual({ code: 'INTERNAL_ERROR', message: 'An unexpected error occurred', details: {} })
  })
})
