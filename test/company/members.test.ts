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

async function members(action: string, ...args: string[]) {
  const lines: string[] = []
  const code = await memberCommands[action](t.ctx.db, args, (l) => lines.push(l))
  return { code, output: lines.join('\n') }
}

describe('shopfloor admin members', () => {
  it('adds, changes and removes members, each with a system audit event and no live event', async () => {
    const owner = await createUser(t.ctx, 'Owner')
    const other = await createUser(t.ctx, 'Other')
    const company = await createCompany(t.app, owner.token)
    const events = recordEvents(t.ctx, company.id)

    expect(await members('add', company.id, other.email.toUpperCase())).toEqual({ code: 0, output: `Added: ${other.email.toUpperCase()} (member)` })
    let list = await call(t.app, 'GET', `/api/companies/${company.id}/members`, { token: other.token })
    expect(list.status).toBe(200)
    expect(list.body).toEqual([
      expect.objectContaining({ user_id: owner.id, name: 'Owner', email: owner.email, role: 'owner', avatar_url: null }),
      expect.objectContaining({ user_id: other.id, role: 'member' }),
    ])

    expect((await members('role', company.id, other.email, 'admin')).code).toBe(0)
    list = await call(t.app, 'GET', `/api/companies/${company.id}/members`, { token: owner.token })
    expect(list.body[1].role).toBe('admin')

    expect((await members('remove', company.id, other.email)).code).toBe(0)
    const gone = await call(t.app, 'GET', `/api/companies/${company.id}`, { token: other.token })
    expect(gone.status).toBe(404)

    const audit = (await auditRows(t.ctx, company.id)).slice(1)
    expect(audit.map((a) => [a.actor_type, a.actor_name, a.verb, a.changes.role])).toEqual([
      ['system', 'system', 'member_added', [null, 'member']],
      ['system', 'system', 'member_role_changed', ['member', 'admin']],
      ['system', 'system', 'member_removed', ['admin', null]],
    ])
    expect(events).toEqual([])
  })

  it('never leaves a company without an owner', async () => {
    const owner = await createUser(t.ctx)
    const second = await createUser(t.ctx)
    const company = await createCompany(t.app, owner.token)
    expect(await members('remove', company.id, owner.email)).toEqual({ code: 1, output: expect.stringContaining('last owner') })
    expect((await members('role', company.id, owner.email, 'member')).code).toBe(1)
    // With a second owner the first may step down.
    expect((await members('add', company.id, second.email, 'owner')).code).toBe(0)
    expect((await members('role', company.id, owner.email, 'member')).code).toBe(0)
    const r = await call(t.app, 'GET', `/api/companies/${company.id}`, { token: owner.token })
    expect(r.body.role).toBe('member')
  })

  it('reports unknown companies, users, duplicate members and bad arguments', async () => {
    const owner = await createUser(t.ctx)
    const company = await createCompany(t.app, owner.token)
    expect((await members('add', '5f8a2b6e-0000-4000-8000-000000000000', owner.email)).code).toBe(1)
    expect((await members('add', company.id, 'nobody@example.test')).code).toBe(1)
    expect((await members('add', company.id, owner.email)).output).toContain('already a member')
    expect((await members('add', company.id, owner.email, 'boss')).code).toBe(2)
    expect((await members('role', company.id, owner.email)).code).toBe(2)
    expect((await members('add', 'not-a-uuid', owner.email)).code).toBe(2)
  })
})
