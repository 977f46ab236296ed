// Agent spend and runaway settings (API-DECISIONS.md "Agent settings beyond the spec"):
// max_run_cost_cents, max_runs_per_hour, pause_on_repeat, heartbeat_skip_idle - defaults,
// validation naming the field, audit of changes, every Agent answer and the claim context.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCompany } from '../fixtures.ts'
import { call, createUser, type TestApp, type TestUser, testApp } from '../helpers.ts'
import { auditRows, countRows } from '../company/support.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

async function setup() {
  const user = await createUser(t.ctx, 'Spend Owner')
  const company = await createCompany(t.app, user.token)
  return { user, company, base: `/api/companies/${company.id}` }
}
const post = (user: TestUser, url: string, body?: unknown) => call(t.app, 'POST', url, { token: user.token, body })
const patch = (user: TestUser, url: string, body: unknown) => call(t.app, 'PATCH', url, { token: user.token, body })
const get = (user: TestUser, url: string) => call(t.app, 'GET', url, { token: user.token })

const DEFAULTS = { max_run_cost_cents: 0, max_runs_per_hour: 0, pause_on_repeat: false, heartbeat_skip_idle: false }
const SET = { max_run_cost_cents: 250, max_runs_per_hour: 20, pause_on_repeat: true, heartbeat_skip_idle: true }

describe('spend settings on agents', () => {
  it('default to off and are in every Agent answer', async () => {
    const { user, base } = await setup()
    const hired = await post(user, `${base}/agents`, { name: 'Plain', adapter: 'simulated' })
    expect(hired.status).toBe(201)
    expect(hired.body).toMatchObject(DEFAULTS)
    expect((await get(user, `${base}/agents/${hired.body.id}`)).body).toMatchObject(DEFAULTS)
    expect((await get(user, `${base}/agents`)).body[0]).toMatchObject(DEFAULTS)
  })

  it('are stored on hire, changed by PATCH with an audit event, and in the claim context', async () => {
    const { user, company, base } = await setup()
    const hired = await post(user, `${base}/agents`, { name: 'Careful', adapter: 'simulated', ...SET })
    expect(hired.status).toBe(201)
    expect(hired.body).toMatchObject(SET)
    const hireAudit = (await auditRows(t.ctx, company.id, hired.body.id))[0]!
    expect(hireAudit.changes).toMatchObject({ max_run_cost_cents: [null, 250], pause_on_repeat: [null, true] })

    const changed = await patch(user, `${base}/agents/${hired.body.id}`, { max_runs_per_hour: 5, pause_on_repeat: false })
    expect(changed.status).toBe(200)
    expect(changed.body).toMatchObject({ ...SET, max_runs_per_hour: 5, pause_on_repeat: false })
    const audits = await auditRows(t.ctx, company.id, hired.body.id)
    expect(audits.at(-1)).toMatchObject({
      verb: 'updated',
      changes: { max_runs_per_hour: [20, 5], pause_on_repeat: [true, false] },
    })
    expect(Object.keys(audits.at(-1)!.changes!).sort()).toEqual(['max_runs_per_hour', 'pause_on_repeat'])

    await post(user, `${base}/agents/${hired.body.id}/wake`, {})
    const claim = await post(user, `${base}/runs/claim`, { runner_id: 'r1' })
    expect(claim.status).toBe(200)
    expect(claim.body.agent).toMatchObject({ ...SET, max_runs_per_hour: 5, pause_on_repeat: false })
  })

  it('refuses bad values with 422 naming the field and writes nothing', async () => {
    const { user, company, base } = await setup()
    const hired = await post(user, `${base}/agents`, { name: 'Target', adapter: 'simulated' })
    const before = await countRows(t.ctx, 'audit_events', company.id)
    const cases: [Record<string, unknown>, string][] = [
      [{ max_run_cost_cents: -1 }, 'max_run_cost_cents'],
      [{ max_run_cost_cents: 1.5 }, 'max_run_cost_cents'],
      [{ max_runs_per_hour: 'many' }, 'max_runs_per_hour'],
      [{ max_runs_per_hour: 2 ** 31 }, 'max_runs_per_hour'],
      [{ pause_on_repeat: 'yes' }, 'pause_on_repeat'],
      [{ heartbeat_skip_idle: 1 }, 'heartbeat_skip_idle'],
    ]
    for (const [body, field] of cases) {
      for (const r of [
        await post(user, `${base}/agents`, { name: 'Bad', adapter: 'simulated', ...body }),
        await patch(user, `${base}/agents/${hired.body.id}`, body),
      ]) {
        expect(r.status, JSON.stringify(body)).toBe(422)
        expect(r.body.error.code).toBe('VALIDATION_ERROR')
        expect(r.body.error.message).toContain(field)
        expect(r.body.error.details.errors[0].loc).toEqual(['body', field])
      }
    }
    expect(await countRows(t.ctx, 'audit_events', company.id)).toBe(before)
    expect(await countRows(t.ctx, 'agents', company.id)).toBe(1)
  })

  it('are described in the OpenAPI document, on hire and PATCH', async () => {
    const docs = await testApp({ debug: true })
    try {
      const doc = (await call(docs.app, 'GET', '/openapi.json')).body
      const path = doc.paths['/api/companies/{company_id}/agents/{agent_id}']
      const hire = doc.paths['/api/companies/{company_id}/agents'].post.requestBody.content['application/json'].schema.properties
      const patch = path.patch.requestBody.content['application/json'].schema.properties
      for (const body of [hire, patch]) {
        expect(body.max_run_cost_cents).toMatchObject({ type: 'integer', minimum: 0 })
        expect(body.max_runs_per_hour).toMatchObject({ type: 'integer', minimum: 0 })
        expect(body.pause_on_repeat).toMatchObject({ type: 'boolean' })
        expect(body.heartbeat_skip_idle).toMatchObject({ type: 'boolean' })
      }
    } finally {
      await docs.close()
    }
  })
})
