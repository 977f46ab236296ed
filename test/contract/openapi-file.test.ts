// openapi.json, committed for integrators, is the document the code generates (src/api/openapi.ts,
// the same as GET /openapi.json with DEBUG=true); and the document names its records, declares
// every status an operation can answer, types agents' capabilities and adapter_config, and
// says which bodies refuse unknown fields, as the server does.
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { openApiDocument, openApiText } from '../../src/api/openapi.ts'
import { ROOT } from '../server-process.ts'
import { call, testApp } from '../helpers.ts'

let doc: Record<string, any>
beforeAll(async () => {
  doc = await openApiDocument()
}, 120_000)

const operations = () => Object.entries<any>(doc.paths).flatMap(([route, methods]) => Object.entries<any>(methods).map(([method, op]) => ({ route, method, op })))

it('openapi.json is the document of the code as it stands', () => {
  const committed = fs.readFileSync(path.join(ROOT, 'openapi.json'), 'utf8')
  // One message, whatever differs: the file is regenerated, never edited.
  expect(committed === openApiText(doc), 'openapi.json is stale: run `npm run openapi:dump` and commit openapi.json').toBe(true)
})

it('is what GET /openapi.json answers with DEBUG=true', async () => {
  const t = await testApp({ debug: true })
  try {
    expect((await call(t.app, 'GET', '/openapi.json')).body).toEqual(doc)
  } finally {
    await t.close()
  }
})

describe('the document', () => {
  it('names the records as components and refers to them', () => {
    const names = Object.keys(doc.components.schemas)
    for (const name of ['Task', 'Agent', 'Run', 'Company', 'Goal', 'Project', 'Routine', 'Comment', 'Approval', 'AuditEvent', 'Webhook', 'WebhookDelivery', 'RunContext', 'User', 'ApiKey', 'Invitation', 'Member']) {
      expect(names).toContain(name)
    }
    const ok = (route: string, method: string, status = '200') => doc.paths[route][method].responses[status].content['application/json'].schema
    expect(ok('/api/companies/{company_id}/tasks/{task_ref}', 'get')).toEqual({ $ref: '#/components/schemas/Task' })
    expect(ok('/api/companies/{company_id}/tasks', 'get')).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Task' } })
    expect(ok('/api/companies/{company_id}/agents', 'post', '201')).toEqual({ $ref: '#/components/schemas/Agent' })
    expect(doc.components.schemas.RunContext.properties.run).toEqual({ $ref: '#/components/schemas/Run' })
  })

  it('declares 401, 403, 500 and 503 on every operation that needs a credential, 500 on all', () => {
    const missing: string[] = []
    for (const { route, method, op } of operations()) {
      const secured = op.security === undefined || op.security.length > 0
      const expected = [...(secured ? ['401', '403'] : []), '500', ...(route.startsWith('/api/') ? ['503'] : [])]
      for (const status of expected) if (!op.responses[status]) missing.push(`${method} ${route} ${status}`)
    }
    expect(missing).toEqual([])
    expect(operations().filter(({ op }) => op.security === undefined).length).toBeGreaterThan(50)
  })

  it('types capabilities and adapter_config', () => {
    const agent = doc.components.schemas.Agent.properties
    expect(agent.capabilities).toMatchObject({ type: ['array', 'null'], items: { type: 'string' } })
    expect(Object.keys(agent.adapter_config.properties)).toEqual(expect.arrayContaining(['model', 'command', 'args', 'env', 'max_turns', 'url', 'timeout_seconds', 'secret_env']))
  })

  it('says additionalProperties: false on request bodies, as the server refuses unknown fields', () => {
    const body = (route: string, method: string) => doc.paths[route][method].requestBody.content['application/json'].schema
    expect(body('/api/companies/{company_id}/tasks', 'post').additionalProperties).toBe(false)
    expect(body('/api/companies/{company_id}/agents', 'post').properties.adapter_config.additionalProperties).toBe(false)
  })
})
