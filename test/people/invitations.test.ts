import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sha256 } from '../../src/server/auth/tokens.ts'
import type { SmtpSink } from '../accounts/smtp-sink.ts'
import { callFrom, mailingApp, uniqueIp } from '../accounts/support.ts'
import { auditRows, recordEvents } from '../company/support.ts'
import { createCompany } from '../fixtures.ts'
import { call, createUser, type TestApp, type TestUser } from '../helpers.ts'

const WEB_APP = 'https://app.shopfloor.test'
let t: TestApp
let smtp: SmtpSink
let close: () => Promise<void>

beforeAll(async () => {
  ;({ t, smtp, close } = await mailingApp(WEB_APP))
})
afterAll(async () => {
  await close?.()
})

interface Team { owner: TestUser; companyId: string; base: string }

async function team(): Promise<Team> {
  const owner = await createUser(t.ctx, 'Olive Owner')
  const company = await createCompany(t.app, owner.token, { name: 'Acme Widgets' })
  return { owner, companyId: company.id, base: `/api/companies/${company.id}` }
}

async function join(s: Team, role: 'admin' | 'member', name = 'Joiner'): Promise<TestUser> {
  const user = await createUser(t.ctx, name)
  const token = await invitedToken(s, user.email, role)
  expect((await accept(user.token, token)).status).toBe(200)
  return user
}

const inviteAs = (s: Team, token: string, body: unknown) => call(t.app, 'POST', `${s.base}/invitations`, { token, body })
// From an address of its own each time: accepting is limited to 10 a minute per address.
const accept = (token: string, invitation: string) =>
  callFrom(t.app, uniqueIp(), 'POST', '/api/invitations/accept', { token, body: { token: invitation } })

/** Invites `email` as the owner and returns the token from the link that arrives by email. */
async function invitedToken(s: Team, email: string, role = 'member'): Promise<string> {
  const before = smtp.messages.length
  const r = await inviteAs(s, s.owner.token, { email, role })
  expect(r.status).toBe(201)
  for (let i = 0; i < 100; i++) {
    const mail = smtp.messages.slice(before).find((m) => m.to.includes(email.toLowerCase()))
    if (mail) return linkToken(mail.text)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`no invitation mail to ${email}`)
}

function linkToken(text: string): string {
  const match = /https:\/\/app\.shopfloor\.test\/invitations\/accept\?token=([A-Za-z0-9_-]+)/.exec(text)
  if (!match) throw new Error(`no invitation link in:\n${text}`)
  return match[1]
}

describe('POST /invitations', () => {
  it('records a pending invitation, mails the link through SMTP, audits it and publishes nothing', async () => {
    const s = await team()
    const events = recordEvents(t.ctx, s.companyId)
    const email = `New.Person.${Date.now()}@Example.test`
    const r = await inviteAs(s, s.owner.token, { email, role: 'admin' })
    expect(r.status).toBe(201)
    expect(r.body).toEqual({
      id: expect.any(String), email: email.toLowerCase(), role: 'admin', status: 'pending',
      expires_at: expect.any(String), created_at: expect.any(String), invited_by_name: 'Olive Owner',
    })
    expect(Date.parse(r.body.expires_at) - Date.parse(r.body.created_at)).toBe(7 * 24 * 3600 * 1000)

    const mail = await smtp.mailTo(email.toLowerCase())
    expect(mail.text).toContain('Olive Owner invited you to join Acme Widgets')
    const token = linkToken(mail.text)
    // inv_ and 32 random bytes: never "-" first, where a command line would read it as an option.
    expect(token.startsWith('inv_')).toBe(true)
    expect(Buffer.from(token.slice('inv_'.length), 'base64url')).toHaveLength(32)
    const stored = await t.ctx.db.one<{ token_hash: string }>('SELECT token_hash FROM invitations WHERE id = $1', [r.body.id])
    expect(stored!.token_hash).toBe(sha256(token)) // only the hash is kept

    expect((await call(t.app, 'GET', `${s.base}/invitations`, { token: s.owner.token })).body).toEqual([r.body])
    const audit = (await auditRows(t.ctx, s.companyId)).filter((a) => a.entity_type === 'member')
    expect(audit).toEqual([expect.objectContaining({
      actor_type: 'user', actor_user_id: s.owner.id, verb: 'invited', label: email.toLowerCase(), changes: { role: [null, 'admin'] },
    })])
    expect(events).toEqual([])
  })

  it('is for owners and admins: a member gets 403 and nothing is recorded', async () => {
    const s = await team()
    const member = await join(s, 'member')
    const admin = await join(s, 'admin')
    const r = await inviteAs(s, member.token, { email: 'someone@example.test', role: 'member' })
    expect(r.status).toBe(403)
    expect(r.body.error).toMatchObject({ code: 'FORBIDDEN', message: 'Only an owner or admin can invite people' })
    expect((await inviteAs(s, admin.token, { email: 'someone@example.test', role: 'member' })).status).toBe(201)
    const [invitation] = (await call(t.app, 'GET', `${s.base}/invitations`, { token: s.owner.token })).body
    expect(invitation.email).toBe('someone@example.test')
    // Revoking likewise, said as what was tried.
    const revoke = await call(t.app, 'DELETE', `${s.base}/invitations/${invitation.id}`, { token: member.token })
    expect(revoke.status).toBe(403)
    expect(revoke.body.error).toMatchObject({ code: 'FORBIDDEN', message: 'Only an owner or admin can revoke invitations' })
  })

  it('refuses an owner role, a bad address and a current member', async () => {
    const s = await team()
    const owner = await inviteAs(s, s.owner.token, { email: 'x@example.test', role: 'owner' })
    expect(owner.status).toBe(422)
    expect(owner.body.error.message).toContain('role')
    const bad = await inviteAs(s, s.owner.token, { email: 'not an address', role: 'member' })
    expect(bad.status).toBe(422)
    expect(bad.body.error.message).toContain('email')
    const member = await join(s, 'member')
    const again = await inviteAs(s, s.owner.token, { email: member.email.toUpperCase(), role: 'admin' })
    expect(again.status).toBe(409)
    expect(again.body.error).toMatchObject({ code: 'MEMBER_EXISTS', details: { email: member.email } })
  })

  it('replaces a pending invitation of the same address: the older link stops working', async () => {
    const s = await team()
    const user = await createUser(t.ctx)
    const first = await invitedToken(s, user.email, 'admin')
    const second = await invitedToken(s, user.email, 'member')
    expect((await call(t.app, 'GET', `${s.base}/invitations`, { token: s.owner.token })).body.map((i: any) => i.role)).toEqual(['member'])
    expect((await accept(user.token, first)).body.error.code).toBe('INVALID_INVITATION')
    expect((await accept(user.token, second)).body.role).toBe('member')
  })
})

describe('POST /api/invitations/accept', () => {
  it('makes the invited person a member with the role, once', async () => {
    const s = await team()
    const user = await createUser(t.ctx, 'Ivy Invitee')
    const token = await invitedToken(s, user.email.toUpperCase(), 'admin')
    expect((await call(t.app, 'GET', s.base, { token: user.token })).status).toBe(404)

    const r = await accept(user.token, token)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ id: s.companyId, name: 'Acme Widgets', role: 'admin' })
    expect((await call(t.app, 'GET', s.base, { token: user.token })).body.role).toBe('admin') // no stale cached "not a member"
    const members = (await call(t.app, 'GET', `${s.base}/members`, { token: s.owner.token })).body
    expect(members.map((m: any) => [m.name, m.role])).toEqual([['Olive Owner', 'owner'], ['Ivy Invitee', 'admin']])
    expect((await call(t.app, 'GET', `${s.base}/invitations`, { token: s.owner.token })).body).toEqual([])
    const added = (await auditRows(t.ctx, s.companyId, user.id))
    expect(added).toEqual([expect.objectContaining({
      actor_type: 'user', actor_user_id: user.id, verb: 'member_added', entity_type: 'member', changes: { role: [null, 'admin'] },
    })])

    const again = await accept(user.token, token)
    expect(again.status).toBe(400)
    expect(again.body.error).toMatchObject({ code: 'INVALID_INVITATION', message: 'This invitation was already used, revoked or has expired' })
  })

  it('answers 403 to another address and leaves the invitation for the right person', async () => {
    const s = await team()
    const invited = await createUser(t.ctx)
    const other = await createUser(t.ctx)
    const token = await invitedToken(s, invited.email)
    const r = await accept(other.token, token)
    expect(r.status).toBe(403)
    expect(r.body.error.code).toBe('FORBIDDEN')
    expect(r.body.error.message).toContain(invited.email)
    expect((await call(t.app, 'GET', `${s.base}/members`, { token: s.owner.token })).body).toHaveLength(1)
    expect((await accept(invited.token, token)).status).toBe(200)
  })

  it('answers 400 INVALID_INVITATION to a revoked, an expired or an unknown token', async () => {
    const s = await team()
    const user = await createUser(t.ctx)
    const revoked = await invitedToken(s, user.email)
    const [pending] = (await call(t.app, 'GET', `${s.base}/invitations`, { token: s.owner.token })).body
    expect((await call(t.app, 'DELETE', `${s.base}/invitations/${pending.id}`, { token: s.owner.token })).status).toBe(204)
    expect((await accept(user.token, revoked)).body.error.code).toBe('INVALID_INVITATION')

    const expired = await invitedToken(s, user.email)
    await t.ctx.db.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [sha256(expired)])
    const r = await accept(user.token, expired)
    expect(r.status).toBe(400)
    expect(r.body.error.code).toBe('INVALID_INVITATION')
    expect((await call(t.app, 'GET', `${s.base}/invitations`, { token: s.owner.token })).body).toEqual([]) // expired is not pending

    expect((await accept(user.token, 'x'.repeat(43))).body.error.code).toBe('INVALID_INVITATION')
    expect((await call(t.app, 'GET', s.base, { token: user.token })).status).toBe(404)
  })

  it('is limited to 10 attempts a minute from one address', async () => {
    const ip = uniqueIp()
    const user = await createUser(t.ctx)
    const statuses: number[] = []
    for (let i = 0; i < 11; i++) {
      statuses.push((await callFrom(t.app, ip, 'POST', '/api/invitations/accept', { token: user.token, body: { token: 'y'.repeat(43) } })).status)
    }
    expect(statuses).toEqual([...Array(10).fill(400), 429])
  })

  it('needs a password session: an API key gets 403 SESSION_REQUIRED, no credential 401', async () => {
    const s = await team()
    const user = await createUser(t.ctx)
    const token = await invitedToken(s, user.email)
    const key = await call(t.app, 'POST', '/api/me/api-keys', { token: user.token, body: { name: 'cli' } })
    const r = await accept(key.body.key, token)
    expect(r.status).toBe(403)
    expect(r.body.error.code).toBe('SESSION_REQUIRED')
    expect((await callFrom(t.app, uniqueIp(), 'POST', '/api/invitations/accept', { body: { token } })).status).toBe(401)
    expect((await accept(user.token, token)).status).toBe(200) // still unused
  })
})

describe('DELETE /invitations/{id}', () => {
  it('revokes a pending invitation (audited); members get 403, unknown or used ones 404', async () => {
    const s = await team()
    const member = await join(s, 'member')
    await invitedToken(s, 'later@example.test')
    const [pending] = (await call(t.app, 'GET', `${s.base}/invitations`, { token: member.token })).body
    const refused = await call(t.app, 'DELETE', `${s.base}/invitations/${pending.id}`, { token: member.token })
    expect(refused.status).toBe(403)
    expect((await call(t.app, 'DELETE', `${s.base}/invitations/${pending.id}`, { token: s.owner.token })).status).toBe(204)
    const gone = await call(t.app, 'DELETE', `${s.base}/invitations/${pending.id}`, { token: s.owner.token })
    expect(gone.status).toBe(404)
    expect(gone.body.error.message).toBe('Invitation not found')
    const audit = (await auditRows(t.ctx, s.companyId)).filter((a) => a.verb === 'invitation_revoked')
    expect(audit).toEqual([expect.objectContaining({ label: 'later@example.test', changes: { role: ['member', null] } })])
  })
})
