// Agent `adapter_config` (validated per adapter, audited, in every Agent answer and the claim
// context) and Run `session_id` (set by a runner's report, in Run answers).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCompany } from '../fixtures.ts'
import { call, createUser, type TestApp, type TestUser, testApp } from '../helpers.ts'
import { auditRows, countRows } from './support.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

async function setup() {
  const user = await createUser(t.ctx, 'Config Owner')
  const company = await createCompany(t.app, user.token)
  return { user, company, base: `/api/companies/${company.id}` }
}
const post = (user: TestUser, url: string, body?: unknown) => call(t.app, 'POST', url, { token: user.token, body })
const patch = (user: TestUser, url: string, body: unknown) => call(t.app, 'PATCH', url, { token: user.token, body })
const get = (user: TestUser, url: string) => call(t.app, 'GET', url, { token: user.token })

describe('adapter_config', () => {
  it('defaults to {} and is in every Agent answer', async () => {
    const { user, base } = await setup()
    const hired = await post(user, `${base}/agents`, { name: 'Plain' })
    expect(hired.status).toBe(201)
    expect(hired.body.adapter_config).toEqual({})
    expect((await get(user, `${base}/agents/${hired.body.id}`)).body.adapter_config).toEqual({})
    expect((await get(user, `${base}/agents`)).body[0].adapter_config).toEqual({})
  })

  it('is stored on hire, changed by PATCH with an audit event, and handed to the runner in the claim', async () => {
    const { user, company, base } = await setup()
    const config = { model: 'claude-sonnet-4-5', max_turns: 30, env: ['GITHUB_TOKEN'], args: ['--verbose'] }
    const hired = await post(user, `${base}/agents`, { name: 'Claude', adapter: 'agent_cli_1', adapter_config: config })
    expect(hired.status).toBe(201)
    expect(hired.body.adapter_config).toEqual(config)

    const changed = await patch(user, `${base}/agents/${hired.body.id}`, { adapter_config: { model: 'claude-opus-4-1' } })
    expect(changed.status).toBe(200)
    expect(changed.body.adapter_config).toEqual({ model: 'claude-opus-4-1' })
    const audits = await auditRows(t.ctx, company.id, hired.body.id)
    expect(audits.at(-1)).toMatchObject({ verb: 'updated', changes: { adapter_config: [config, { model: 'claude-opus-4-1' }] } })

    await post(user, `${base}/agents/${hired.body.id}/wake`, {})
    const claim = await post(user, `${base}/runs/claim`, { runner_id: 'r1' })
    expect(claim.body.agent.adapter_config).toEqual({ model: 'claude-opus-4-1' })
  })

  it('refuses keys the adapter does not take, naming the field, and writes nothing', async () => {
    const { user, company, base } = await setup()
    const before = await countRows(t.ctx, 'agents', company.id)
    const codex = await post(user, `${base}/agents`, { name: 'Codex', adapter: 'agent_cli_2', adapter_config: { max_turns: 5 } })
    expect(codex.status).toBe(422)
    expect(codex.body.error.code).toBe('VALIDATION_ERROR')
    expect(codex.body.error.message).toMatch(/^adapter_config\.max_turns: Not a setting of adapter agent_cli_2/)
    expect(codex.body.error.details.errors[0].loc).toEqual(['body', 'adapter_config', 'max_turns'])
    const unknown = await post(user, `${base}/agents`, { name: 'Sim', adapter: 'simulated', adapter_config: { model: 'x' } })
    expect(unknown.status).toBe(422)
    expect(unknown.body.error.message).toMatch(/^adapter_config\.model: .*takes no settings/)
    const typo = await post(user, `${base}/agents`, { name: 'Typo', adapter: 'agent_cli_1', adapter_config: { modle: 'x' } })
    expect(typo.status).toBe(422)
    expect(typo.body.error.message).toMatch(/^adapter_config\.modle:/)
    expect(await countRows(t.ctx, 'agents', company.id)).toBe(before)
  })

  it('checks the types and formats of its keys', async () => {
    const { user, base } = await setup()
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ max_turns: 0 }, /^adapter_config\.max_turns: Input should be greater than or equal to 1/],
      [{ max_turns: '5' }, /^adapter_config\.max_turns: Input should be a valid integer/],
      [{ env: ['NOT-A-NAME'] }, /^adapter_config\.env\.0: String should match pattern/],
      [{ args: 'one' }, /^adapter_config\.args: Input should be a valid array/],
    ]
    for (const [adapterConfig, message] of cases) {
      const r = await post(user, `${base}/agents`, { name: 'Bad', adapter: 'agent_cli_1', adapter_config: adapterConfig })
      expect(r.status, JSON.stringify(adapterConfig)).toBe(422)
      expect(r.body.error.message).toMatch(message)
    }
    const notObject = await post(user, `${base}/agents`, { name: 'Bad', adapter_config: ['model'] })
    expect(notObject.status).toBe(422)
    expect(notObject.body.error.message).toMatch(/^adapter_config: Input should be a valid object/)
    const ftp = await post(user, `${base}/agents`, { name: 'Web', adapter: 'http', adapter_config: { url: 'ftp://example.test/x' } })
    expect(ftp.status).toBe(422)
    expect(ftp.body.error.message).toBe('adapter_config.url: Input should be an http or https URL')
    const http = await post(user, `${base}/agents`, {
      name: 'Web', adapter: 'http', adapter_config: { url: 'https://agent.example.test/run', timeout_seconds: 60, secret_env: 'AGENT_TOKEN' },
    })
    expect(http.status).toBe(201)
  })

  it('must suit the new adapter when only the adapter changes', async () => {
    const { user, company, base } = await setup()
    const hired = await post(user, `${base}/agents`, { name: 'Gem', adapter: 'agent_cli_3', adapter_config: { max_turns: 10 } })
    expect(hired.status).toBe(201)
    const moved = await patch(user, `${base}/agents/${hired.body.id}`, { adapter: 'agent_cli_4' })
    expect(moved.status).toBe(422)
    expect(moved.body.error.message).toMatch(/^adapter_config\.max_turns: Not a setting of adapter agent_cli_4/)
    expect((await get(user, `${base}/agents/${hired.body.id}`)).body.adapter).toBe('agent_cli_3')
    const both = await patch(user, `${base}/agents/${hired.body.id}`, { adapter: 'agent_cli_4', adapter_config: {} })
    expect(both.status).toBe(200)
    expect(both.body).toMatchObject({ adapter: 'agent_cli_4', adapter_config: {} })
    expect((await auditRows(t.ctx, company.id, hired.body.id)).at(-1)!.changes).toEqual({
      adapter: ['agent_cli_3', 'agent_cli_4'], adapter_config: [{ max_turns: 10 }, {}],
    })
  })
})

describe('session_id', () => {
  it('is null until a report sets it, kept by later reports that do not name it, and in Run answers', async () => {
    const { user, base } = await setup()
    const agent = await post(user, `${base}/agents`, { name: 'Sess' })
    await post(user, `${base}/agents/${agent.body.id}/wake`, {})
    const claim = await post(user, `${base}/runs/claim`, { runner_id: 'r1' })
    const runId = claim.body.run.id
    expect(claim.body.run.session_id).toBeNull()
    const first = await patch(user, `${base}/runs/${runId}`, { runner_id: 'r1', session_id: 'sess-123' })
    expect(first.status).toBe(200)
    expect(first.body.session_id).toBe('sess-123')
    const done = await patch(user, `${base}/runs/${runId}`, { runner_id: 'r1', status: 'succeeded' })
    expect(done.body.session_id).toBe('sess-123')
    expect((await get(user, `${base}/runs/${runId}`)).body.session_id).toBe('sess-123')
    expect((await get(user, `${base}/runs?agent_id=${agent.body.id}`)).body[0].session_id).toBe('sess-123')
    const tooLong = await patch(user, `${base}/runs/${runId}`, { runner_id: 'r1', session_id: 'x'.repeat(201) })
    expect(tooLong.status).toBe(422)
    expect(tooLong.body.error.message).toMatch(/^session_id:/)
  })
})
