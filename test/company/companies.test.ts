import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { memberCommands } from '../../src/cli/admin-members.ts'
import { createCompany } from '../fixtures.ts'
import { call, createUser, type TestApp, testApp } from '../helpers.ts'
import { auditRows, recordEvents } from './support.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

const silent = () => {}
/** Runs `shopfloor admin members ...` against the test database. */
function members(action: string, ...args: string[]) {
  return memberCommands[action](t.ctx.db, args, silent)
}

describe('POST /api/companies', () => {
  it('creates a company with defaults, makes the caller owner and records a created audit event', async () => {
    const user = await createUser(t.ctx, 'Olivia Owner')
    const r = await call(t.app, 'POST', '/api/companies', { token: user.token, body: { name: 'Acme' } })
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({ name: 'Acme', mission: null, monthly_budget_cents: 0, task_prefix: 'SVC', role: 'owner' })
    expect(r.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT/)
    const audit = await auditRows(t.ctx, r.body.id)
    expect(audit).toHaveLength(1)
    expect(audit[0]).toMatchObject({
      actor_type: 'user', actor_name: 'Olivia Owner', actor_user_id: user.id, verb: 'created',
      entity_type: 'company', entity_id: r.body.id, label: 'Acme',
    })
    expect(audit[0].changes.name).toEqual([null, 'Acme'])
  })

  it('publishes nothing', async () => {
    const user = await createUser(t.ctx)
    const bus = t.ctx.bus
    const published: unknown[] = []
    t.ctx.bus = { ...bus, publish: (companyId, event) => void published.push({ companyId, event }) }
    try {
      expect((await call(t.app, 'POST', '/api/companies', { token: user.token, body: { name: 'Quiet' } })).status).toBe(201)
    } finally {
      t.ctx.bus = bus
    }
    expect(published).toEqual([])
  })

  it('validates name, budget and task prefix', async () => {
    const user = await createUser(t.ctx)
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(121) }, { name: 'A', monthly_budget_cents: -1 },
      { name: 'A', monthly_budget_cents: '5' }, { name: 'A', task_prefix: 'abc' }, { name: 'A', task_prefix: '1AB' },
      { name: 'A', task_prefix: 'ABCDEFGHI' }]) {
      const r = await call(t.app, 'POST', '/api/companies', { token: user.token, body })
      expect(r.status, JSON.stringify(body)).toBe(422)
      expect(r.body.error.code).toBe('VALIDATION_ERROR')
    }
    const ok = await call(t.app, 'POST', '/api/companies', { token: user.token, body: { name: 'x'.repeat(120), task_prefix: 'AB12CD34' } })
    expect(ok.status).toBe(201)
  })

  it('needs a credential', async () => {
    const r = await call(t.app, 'POST', '/api/companies', { body: { name: 'A' } })
    expect(r.status).toBe(401)
    expect(r.body.error.code).toBe('AUTH_REQUIRED')
  })
})

describe('GET /api/companies and /api/companies/{id}', () => {
  it('lists only the caller\'s companies with their role', async () => {
    const a = await createUser(t.ctx)
    const b = await createUser(t.ctx)
    const mine = await createCompany(t.app, a.token, { name: 'Mine' })
    await createCompany(t.app, b.token, { name: 'Theirs' })
    const r = await call(t.app, 'GET', '/api/companies', { token: a.token })
    expect(r.status).toBe(200)
    expect(r.body).toEqual([expect.objectContaining({ id: mine.id, name: 'Mine', role: 'owner' })])
  })

  it('gets a company for a member and 404 Company not found for anyone else', async () => {
    const a = await createUser(t.ctx)
    const stranger = await createUser(t.ctx)
    const company = await createCompany(t.app, a.token, { mission: 'Ship it', task_prefix: 'ACM' })
    const r = await call(t.app, 'GET', `/api/companies/${company.id}`, { token: a.token })
    expect(r.body).toEqual({ ...company, role: 'owner' })
    const other = await call(t.app, 'GET', `/api/companies/${company.id}`, { token: stranger.token })
    expect(other.status).toBe(404)
    expect(other.body.error).toMatchObject({ code: 'NOT_FOUND', message: 'Company not found' })
    const bad = await call(t.app, 'GET', '/api/companies/not-a-uuid', { token: a.token })
    expect(bad.status).toBe(422)
  })
})

describe('PATCH /api/companies/{id}', () => {
  it('changes name, mission and budget, audits the fields and publishes company.updated', async () => {
    const owner = await createUser(t.ctx)
    const company = await createCompany(t.app, owner.token, { name: 'Old' })
    const events = recordEvents(t.ctx, company.id)
    const r = await call(t.app, 'PATCH', `/api/companies/${company.id}`, {
      token: owner.token, body: { name: 'New', mission: 'Do good', monthly_budget_cents: 5000 },
    })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ name: 'New', mission: 'Do good', monthly_budget_cents: 5000, role: 'owner' })
    expect(events).toEqual([{ type: 'company.updated', id: company.id }])
    const audit = (await auditRows(t.ctx, company.id)).at(-1)!
    expect(audit).toMatchObject({ verb: 'updated', entity_type: 'company' })
    expect(audit.changes).toEqual({ name: ['Old', 'New'], mission: [null, 'Do good'], monthly_budget_cents: [0, 5000] })

    // Sending the current values changes nothing: no event, no audit.
    const before = (await auditRows(t.ctx, company.id)).length
    const same = await call(t.app, 'PATCH', `/api/companies/${company.id}`, { token: owner.token, body: { name: 'New' } })
    expect(same.status).toBe(200)
    expect(events).toHaveLength(1)
    expect(await auditRows(t.ctx, company.id)).toHaveLength(before)
  })

  it('keeps the task prefix: the same value is ignored, another is 422', async () => {
    const owner = await createUser(t.ctx)
    const company = await createCompany(t.app, owner.token, { task_prefix: 'KEEP' })
    const same = await call(t.app, 'PATCH', `/api/companies/${company.id}`, { token: owner.token, body: { task_prefix: 'KEEP' } })
    expect(same.status).toBe(200)
    const other = await call(t.app, 'PATCH', `/api/companies/${company.id}`, { token: owner.token, body: { task_prefix: 'NEW' } })
    expect(other.status).toBe(422)
    expect(other.body.error.details.errors[0].loc).toEqual(['body', 'task_prefix'])
    const r = await call(t.app, 'GET', `/api/companies/${company.id}`, { token: owner.token })
    expect(r.body.task_prefix).toBe('KEEP')
  })

  it('allows owner and admin, refuses a member with 403 FORBIDDEN and a non-member with 404', async () => {
    const owner = await createUser(t.ctx)
    const admin = await createUser(t.ctx)
    const member = await createUser(t.ctx)
    const stranger = await createUser(t.ctx)
    const company = await createCompany(t.app, owner.token)
    expect(await members('add', company.id, admin.email, 'admin')).toBe(0)
    expect(await members('add', company.id, member.email)).toBe(0)

    const byAdmin = await call(t.app, 'PATCH', `/api/companies/${company.id}`, { token: admin.token, body: { name: 'By admin' } })
    expect(byAdmin.status).toBe(200)
    expect(byAdmin.body.role).toBe('admin')
    const byMember = await call(t.app, 'PATCH', `/api/companies/${company.id}`, { token: member.token, body: { name: 'By member' } })
    expect(byMember.status).toBe(403)
    expect(byMember.body.error.code).toBe('FORBIDDEN')
    const byStranger = await call(t.app, 'PATCH', `/api/companies/${company.id}`, { token: stranger.token, body: { name: 'x' } })
    expect(byStranger.status).toBe(404)

    // A member may do every other company action, such as reading it.
    const read = await call(t.app, 'GET', `/api/companies/${company.id}`, { token: member.token })
    expect(read.body).toMatchObject({ name: 'By admin', role: 'member' })

    // Promoted to admin by an operator command, the member may change the company as soon as
    // the API hears of the change (its credential cache forgets on the database's notification,
    // which arrives moments after the commit: docs/accounts.md).
    expect(await members('role', company.id, member.email, 'admin')).toBe(0)
    const promote = () => call(t.app, 'PATCH', `/api/companies/${company.id}`, { token: member.token, body: { name: 'By promoted' } })
    await expect.poll(async () => (await promote()).status, { timeout: 2_000, interval: 20 }).toBe(200)
  })
})
