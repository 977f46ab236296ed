// The OpenAPI document as a new user meets it: linted with Redocly's recommended rules, and a
// client generated from it with openapi-typescript + openapi-fetch that must type-check and
// work against a real server. Everything generated goes to a temporary folder.
import { execFile } from 'node:child_process'
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import openapiTS, { astToString } from 'openapi-typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testApp, type TestApp } from '../helpers.ts'

const run = promisify(execFile)
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

let t: TestApp
let dir: string
let doc: any

beforeAll(async () => {
  t = await testApp({ debug: true })
  doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json()
  dir = await mkdtemp(path.join(tmpdir(), 'shopfloor-openapi-'))
  await writeFile(path.join(dir, 'openapi.json'), JSON.stringify(doc))
})

afterAll(async () => {
  await t?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('the OpenAPI document', () => {
  it('passes Redocly lint with the recommended rules: no error, no warning', async () => {
    const cli = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js')
    const args = [cli, 'lint', path.join(dir, 'openapi.json'), '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json']
    const { stdout } = await run(process.execPath, args, { cwd: dir, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } }).catch(
      (err) => err,
    )
    const report = JSON.parse(stdout)
    const problems = report.problems.map((p: any) => `${p.ruleId} ${p.location?.[0]?.pointer}: ${p.message}`)
    expect(problems).toEqual([])
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 })
  })

  it('names and summarises every operation, answers it documents, errors as the ErrorEnvelope component', () => {
    expect(doc.components.schemas.ErrorEnvelope.properties.error.required).toEqual(['code', 'message', 'details'])
    for (const [route, methods] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(methods)) {
        expect(op.operationId, `${method} ${route}`).toBeTruthy()
        expect(op.summary, `${method} ${route}`).toBeTruthy()
        const statuses = Object.keys(op.responses)
        expect(statuses.some((s) => s.startsWith('2')), `${method} ${route}`).toBe(true)
        for (const status of statuses.filter((s) => s.startsWith('4'))) {
          expect(op.responses[status].content['application/json'].schema.$ref, `${method} ${route} ${status}`).toBe(
            '#/components/schemas/ErrorEnvelope',
          )
        }
      }
    }
    const tasks = doc.paths['/api/companies/{company_id}/tasks']
    expect(Object.keys(tasks.post.responses)).toEqual(expect.arrayContaining(['201', '401', '404', '422']))
    expect(Object.keys(doc.paths['/api/companies/{company_id}/tasks/{task_ref}'].delete.responses)).toContain('204')
    expect(Object.keys(doc.paths['/api/companies/{company_id}/runs/claim'].post.responses)).toEqual(
      expect.arrayContaining(['200', '204']),
    )
  })

  it('marks the public routes as needing no credential and the others as needing a bearer', () => {
    for (const [route, method] of [['/api/register', 'post'], ['/api/login', 'post'], ['/health', 'get'], ['/api/password/forgot', 'post']]) {
      expect(doc.paths[route][method].security, route).toEqual([])
    }
    expect(doc.security).toEqual([{ bearer: [] }])
    expect(doc.paths['/api/me'].get.security).toBeUndefined()
    expect(doc.paths['/api/companies/{company_id}/tasks'].get.security).toBeUndefined()
  })

  it('describes the event stream as text/event-stream', () => {
    const ok = doc.paths['/api/companies/{company_id}/events'].get.responses['200']
    expect(Object.keys(ok.content)).toEqual(['text/event-stream'])
  })
})

// A new user's first program: register, create a company, hire, create a task, list tasks.
const FLOW = `
import createClient from 'openapi-fetch'
import type { paths } from './schema.ts'

const client = createClient<paths>({ baseUrl: process.env.API_URL! })
const email = 'flow-' + Date.now() + '-' + process.pid + '@example.test'
const registered = await client.POST('/api/register', { body: { email, password: 'password123', name: 'Flow User' } })
if (!registered.data) throw new Error('register: ' + JSON.stringify(registered.error))
const token: string = registered.data.access_token
client.use({ onRequest: ({ request }) => { request.headers.set('Authorization', 'Bearer ' + token) } })

const company = await client.POST('/api/companies', { body: { name: 'Flow Co', task_prefix: 'FLW' } })
if (!company.data) throw new Error('company: ' + JSON.stringify(company.error))
const company_id: string = company.data.id

const agent = await client.POST('/api/companies/{company_id}/agents', {
  params: { path: { company_id } },
  body: { name: 'Ada', title: 'Engineer', adapter: 'simulated', monthly_budget_cents: 500 },
})
if (!agent.data) throw new Error('hire: ' + JSON.stringify(agent.error))
const status: 'idle' | 'running' | 'paused' | 'pending_approval' | 'terminated' | 'error' = agent.data.status

const task = await client.POST('/api/companies/{company_id}/tasks', {
  params: { path: { company_id } },
  body: { title: 'Write the README', status: 'backlog', priority: 'high', assignee_agent_id: agent.data.id },
})
if (!task.data) throw new Error('task: ' + JSON.stringify(task.error))
const key: string = task.data.key

const listed = await client.GET('/api/companies/{company_id}/tasks', { params: { path: { company_id }, query: { status: ['backlog'] } } })
if (!listed.data) throw new Error('list: ' + JSON.stringify(listed.error))

const missing = await client.GET('/api/companies/{company_id}/tasks/{task_ref}', { params: { path: { company_id, task_ref: 'FLW-999' } } })
const code: string | undefined = missing.error?.error.code

console.log(JSON.stringify({
  registered: registered.response.status, company: company.response.status, agent: agent.response.status, agentStatus: status,
  task: task.response.status, key, listed: listed.data.map((t) => t.key), missing: missing.response.status, code,
}))
`

describe('a client generated from the document', () => {
  it('type-checks a register, create-company, hire, create-task, list-tasks flow and runs it against a server', async () => {
    const schema = astToString(await openapiTS(doc))
    await writeFile(path.join(dir, 'schema.ts'), schema)
    await writeFile(path.join(dir, 'flow.ts'), FLOW)
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }))
    await writeFile(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', strict: true, noEmit: true, skipLibCheck: true,
          allowImportingTsExtensions: true, types: ['node'], lib: ['ES2022', 'DOM'],
        },
        files: ['flow.ts'],
      }),
    )
    await symlink(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir')

    // The flow below reads typed fields of every answer: with an answer typed `never` or `unknown` it does not compile.
    expect(schema).toContain('ErrorEnvelope')
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc')
    const checked = await run(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json')], { cwd: dir }).catch((err) => err)
    expect(checked.stdout + checked.stderr).toBe('')

    await t.app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = t.app.server.address() as AddressInfo
    const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(dir, 'flow.ts')], {
      cwd: dir,
      env: { ...process.env, API_URL: `http://127.0.0.1:${port}` },
    })
    expect(JSON.parse(stdout)).toEqual({
      registered: 201, company: 201, agent: 201, agentStatus: 'idle', task: 201, key: 'FLW-1', listed: ['FLW-1'], missing: 404, code: 'NOT_FOUND',
    })
  })
})
