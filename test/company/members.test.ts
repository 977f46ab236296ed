import { execFile } from 'node:child_process'
import fs from 'node:fs'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { memberCommands } from '../../src/cli/admin-members.ts'
import { migrate } from '../../src/server/db/migrate.ts'
import { openPglite } from '../../src/server/db/pglite.ts'
import { createCompany } from '../fixtures.ts'
import { call, createUser, embeddedDataDir, type TestApp, testApp, uniqueEmail } from '../helpers.ts'
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
    // The API forgets the removed member's cached role as the database's notification arrives,
    // moments after the commit (docs/accounts.md).
    const read = () => call(t.app, 'GET', `/api/companies/${company.id}`, { token: other.token })
    await expect.poll(async () => (await read()).status, { timeout: 2_000, interval: 20 }).toBe(404)

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

describe('the shopfloor executable', () => {
  it('`shopfloor admin members` acts on the embedded database in DATA_DIR', async () => {
    const dataDir = embeddedDataDir()
    const email = uniqueEmail('member')
    try {
      const db = await openPglite(dataDir)
      await migrate(db)
      const company = (await db.one<{ id: string }>(`INSERT INTO companies (name) VALUES ('Cli Co') RETURNING id`))!.id
      await db.query(`INSERT INTO users (email, name, password_hash) VALUES ($1, 'Cli', 'x')`, [email])
      await db.close()

      const { DATABASE_URL: _ignored, ...env } = process.env
      const run = (...args: string[]) =>
        promisify(execFile)(process.execPath, ['bin/shopfloor.js', 'admin', 'members', ...args], {
          env: { ...env, DATA_DIR: dataDir, ENVIRONMENT: 'test', LOG_LEVEL: 'silent' },
          timeout: 60_000,
        })
      // Each run opens the embedded database from disk, so the test makes one; the refusals and
      // exit codes are covered in-process above.
      expect((await run('add', company, email, 'admin')).stdout.trim()).toBe(`Added: ${email} (admin)`)

      const check = await openPglite(dataDir)
      expect(await check.one('SELECT role FROM memberships WHERE company_id = $1', [company])).toEqual({ role: 'admin' })
      await check.close()
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)
})
