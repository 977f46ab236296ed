import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addMember } from '../../src/domain/companies/members.ts'
import { seedOrg } from '../agents/support.ts'
import { auditRows, recordEvents } from '../company/support.ts'
import { createCompany } from '../fixtures.ts'
import { call, createUser, type TestApp, testApp, type TestUser } from '../helpers.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

interface Team { owner: TestUser; admin: TestUser; member: TestUser; companyId: string; base: string }

/** A company with an owner, an admin and a member. */
async function team(): Promise<Team> {
  const owner = await createUser(t.ctx, 'Olive Owner')
  const admin = await createUser(t.ctx, 'Adam Admin')
  const member = await createUser(t.ctx, 'Mia Member')
  const company = await createCompany(t.app, owner.token)
  await t.ctx.db.transaction(async (tx) => {
    await addMember(tx, company.id, admin.email, 'admin')
    await addMember(tx, company.id, member.email, 'member')
  })
  return { owner, admin, member, companyId: company.id, base: `/api/companies/${company.id}` }
}

const patch = (s: Team, token: string, userId: string, role: unknown) =>
  call(t.app, 'PATCH', `${s.base}/members/${userId}`, { token, body: { role } })
const remove = (s: Team, token: string, userId: string) => call(t.app, 'DELETE', `${s.base}/members/${userId}`, { token })
const roles = async (s: Team) =>
  (await call(t.app, 'GET', `${s.base}/members`, { token: s.owner.token })).body.map((m: any) => [m.name, m.role])

describe('PATCH /members/{user_id}', () => {
  it('changes a role (audited as the person who did it, published nothing) and answers the Member', async () => {
    const s = await team()
    const events = recordEvents(t.ctx, s.companyId)
    const r = await patch(s, s.admin.token, s.member.id, 'admin')
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ user_id: s.member.id, name: 'Mia Member', email: s.member.email, avatar_url: null, role: 'admin', created_at: expect.any(String) })
    expect(await roles(s)).toEqual([['Olive Owner', 'owner'], ['Adam Admin', 'admin'], ['Mia Member', 'admin']])
    expect(await auditRows(t.ctx, s.companyId, s.member.id)).toEqual([
      expect.objectContaining({ verb: 'member_added' }),
      expect.objectContaining({
        actor_type: 'user', actor_user_id: s.admin.id, actor_name: 'Adam Admin', verb: 'member_role_changed',
        entity_type: 'member', entity_id: s.member.id, label: s.member.email, changes: { role: ['member', 'admin'] },
      }),
    ])
    // The same role again changes nothing and records nothing.
    expect((await patch(s, s.owner.token, s.member.id, 'admin')).status).toBe(200)
    expect(await auditRows(t.ctx, s.companyId, s.member.id)).toHaveLength(2)
    expect(events).toEqual([])
  })

  it('lets an owner make an owner, never an admin; a member changes nobody', async () => {
    const s = await team()
    const byAdmin = await patch(s, s.admin.token, s.member.id, 'owner')
    expect(byAdmin.status).toBe(403)
    expect(byAdmin.body.error).toMatchObject({ code: 'FORBIDDEN', message: 'Only an owner can make someone an owner' })
    const byMember = await patch(s, s.member.token, s.admin.id, 'member')
    expect(byMember.status).toBe(403)
    expect(byMember.body.error.message).toBe('Only an owner or admin can change roles')
    expect((await patch(s, s.member.token, s.member.id, 'admin')).status).toBe(403) // nor themselves
    expect((await patch(s, s.owner.token, s.admin.id, 'owner')).body.role).toBe('owner')
    expect(await roles(s)).toEqual([['Olive Owner', 'owner'], ['Adam Admin', 'owner'], ['Mia Member', 'member']])
  })

  it('never changes an owner, whoever asks', async () => {
    const s = await team()
    await patch(s, s.owner.token, s.admin.id, 'owner')
    for (const [who, target] of [[s.member, s.owner], [s.admin, s.owner], [s.owner, s.admin], [s.owner, s.owner]] as const) {
      const r = await patch(s, who.token, target.id, 'member')
      expect(r.status).toBe(403)
      expect(r.body.error.code).toBe('FORBIDDEN')
    }
    expect(await roles(s)).toEqual([['Olive Owner', 'owner'], ['Adam Admin', 'owner'], ['Mia Member', 'member']])
  })

  it('answers 404 for someone who is not a member and 422 for an unknown role', async () => {
    const s = await team()
    const stranger = await createUser(t.ctx)
    const r = await patch(s, s.owner.token, stranger.id, 'admin')
    expect(r.status).toBe(404)
    expect(r.body.error.message).toBe('Member not found')
    const bad = await patch(s, s.owner.token, s.member.id, 'boss')
    expect(bad.status).toBe(422)
    expect(bad.body.error.message).toContain('role')
  })
})

describe('DELETE /members/{user_id}', () => {
  it('removes a member (audited); the removed member is refused at once, API key included', async () => {
    const s = await team()
    const key = (await call(t.app, 'POST', '/api/me/api-keys', { token: s.member.token, body: { name: 'cli' } })).body.key
    expect((await call(t.app, 'GET', `${s.base}/agents`, { token: key })).status).toBe(200) // now cached
    const events = recordEvents(t.ctx, s.companyId)
    expect((await remove(s, s.admin.token, s.member.id)).status).toBe(204)
    const after = await call(t.app, 'GET', `${s.base}/agents`, { token: key })
    expect(after.status).toBe(404)
    expect(after.body.error.message).toBe('Company not found')
    expect(await roles(s)).toEqual([['Olive Owner', 'owner'], ['Adam Admin', 'admin']])
    expect((await auditRows(t.ctx, s.companyId, s.member.id)).at(-1)).toMatchObject({
      actor_user_id: s.admin.id, verb: 'member_removed', entity_type: 'member', changes: { role: ['member', null] },
    })
    expect(events).toEqual([])
  })

  it('lets anyone but an owner leave; a member removes nobody else; nobody removes an owner', async () => {
    const s = await team()
    const other = await createUser(t.ctx)
    await t.ctx.db.transaction((tx) => addMember(tx, s.companyId, other.email, 'member'))
    const refused = await remove(s, s.member.token, other.id)
    expect(refused.status).toBe(403)
    expect(refused.body.error.message).toBe('Only an owner or admin can remove other members')
    expect((await remove(s, s.member.token, s.member.id)).status).toBe(204)
    expect((await remove(s, s.admin.token, s.owner.id)).status).toBe(403)
    const leaving = await remove(s, s.owner.token, s.owner.id)
    expect(leaving.status).toBe(403)
    expect(leaving.body.error.message).toBe('An owner cannot leave the company')
    expect((await remove(s, s.admin.token, s.admin.id)).status).toBe(204)
    expect(await roles(s)).toEqual([['Olive Owner', 'owner'], [other.name, 'member']])
    expect((await remove(s, s.owner.token, s.member.id)).status).toBe(404)
  })

  it('is seen by another API process as the change commits (its cached credentials are forgotten)', async () => {
    const s = await team()
    const other = await testApp({}, { db: t.ctx.db })
    try {
      expect((await call(other.app, 'GET', `${s.base}/agents`, { token: s.member.token })).status).toBe(200)
      expect((await remove(s, s.owner.token, s.member.id)).status).toBe(204)
      let status = 200
      for (let i = 0; i < 50 && status === 200; i++) {
        status = (await call(other.app, 'GET', `${s.base}/agents`, { token: s.member.token })).status
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(status).toBe(404)
    } finally {
      await other.app.close()
    }
  })

  it('keeps POST /members at 405', async () => {
    const s = await team()
    expect((await call(t.app, 'POST', `${s.base}/members`, { token: s.owner.token, body: {} })).status).toBe(405)
  })
})

describe("an agent's run credential", () => {
  it('may read members, invitations and runners but never invites, changes or removes anyone', async () => {
    const org = await seedOrg(t)
    const read = (path: string) => call(t.app, 'GET', `${org.base}${path}`, { token: org.token })
    for (const path of ['/members', '/invitations', '/runners']) expect((await read(path)).status).toBe(200)
    const attempts = [
      ['POST', '/invitations', { email: 'friend@example.test', role: 'admin' }, 'invite people'],
      ['PATCH', `/members/${org.user.id}`, { role: 'member' }, 'change members'],
      ['DELETE', `/members/${org.user.id}`, undefined, 'remove members'],
      ['DELETE', '/invitations/00000000-0000-4000-8000-000000000000', undefined, 'revoke invitations'],
    ] as const
    for (const [method, path, body, right] of attempts) {
      const r = await call(t.app, method, `${org.base}${path}`, { token: org.token, body })
      expect(r.status).toBe(403)
      expect(r.body.error).toMatchObject({ code: 'FORBIDDEN', details: { right } })
    }
    expect((await read('/invitations')).body).toEqual([])
  })
})
