import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyRequest } from 'fastify'
import { readsComputed, readsShared, rightsKey } from '../../src/server/http/single-flight.ts'
import { createCompany, createTask } from '../fixtures.ts'
import { call, createUser, type TestApp, type TestUser, testApp } from '../helpers.ts'

// Identical reads arriving at the same moment are computed once (src/server/http/single-flight.ts),
// never across different rights, and never with an answer older than the request.

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

async function counted(route: string) {
  const value = async (counter: typeof readsComputed) => (await counter.get()).values.find((v) => v.labels.route === route)?.value ?? 0
  return { computed: await value(readsComputed), shared: await value(readsShared) }
}

async function companyOf(owner: TestUser) {
  const company = await createCompany(t.app, owner.token)
  return { companyId: company.id as string, base: `/api/companies/${company.id}` }
}

async function member(companyId: string, name: string): Promise<TestUser> {
  const user = await createUser(t.ctx, name)
  await t.ctx.db.query(`INSERT INTO memberships (company_id, user_id, role) VALUES ($1, $2, 'member')`, [companyId, user.id])
  return user
}

describe('identical reads at the same moment', () => {
  it('computes one task list for identical requests of one credential, and answers each alike', async () => {
    const owner = await createUser(t.ctx, 'Owner')
    const { companyId, base } = await companyOf(owner)
    for (let i = 0; i < 3; i++) await createTask(t.app, owner.token, companyId, { title: `Shared ${i}` })
    await call(t.app, 'GET', `${base}/tasks`, { token: owner.token }) // the credential known, as under load

    const before = await counted('/tasks')
    const answers = await Promise.all(Array.from({ length: 8 }, () => call(t.app, 'GET', `${base}/tasks?limit=50&status=todo`, { token: owner.token })))
    const after = await counted('/tasks')
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200))
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1)
    expect(answers[0].body.map((task: { title: string }) => task.title).sort()).toEqual(['Shared 0', 'Shared 1', 'Shared 2'])
    expect(after.computed - before.computed).toBe(1)
    expect(after.shared - before.shared).toBe(7)
  })

  it('never shares an answer between two people, even asking the same thing at once', async () => {
    const owner = await createUser(t.ctx, 'Owner')
    const { companyId, base } = await companyOf(owner)
    const other = await member(companyId, 'Member')
    await createTask(t.app, owner.token, companyId, { title: 'Filed by the owner', status: 'blocked' })
    await createTask(t.app, other.token, companyId, { title: 'Filed by the member' })
    for (const who of [owner, other]) await call(t.app, 'GET', `${base}/tasks`, { token: who.token })

    // Same paths, same moment, different people: "created_by=me" and the dashboard's "for you"
    // differ. Several of each, interleaved, so that requests of both reach the routes together.
    const asked = Array.from({ length: 6 }, () => [owner, other]).flat()
    const [lists, boards] = await Promise.all([
      Promise.all(asked.map((who) => call(t.app, 'GET', `${base}/tasks?created_by=me`, { token: who.token }))),
      Promise.all(asked.map((who) => call(t.app, 'GET', `${base}/dashboard`, { token: who.token }))),
    ])
    for (const [i, who] of asked.entries()) {
      const title = who === owner ? 'Filed by the owner' : 'Filed by the member'
      expect(lists[i].body.map((task: { title: string }) => task.title)).toEqual([title])
      expect(boards[i].body.for_you).toMatchObject({ open_tasks: 1, blocked_tasks: who === owner ? 1 : 0 })
      expect(boards[i].body.for_you.recent.map((task: { title: string }) => task.title)).toEqual([title])
    }
  })

  it('computes one dashboard for identical requests of one credential', async () => {
    const owner = await createUser(t.ctx, 'Owner')
    const { companyId, base } = await companyOf(owner)
    await createTask(t.app, owner.token, companyId, { title: 'On the dashboard' })
    await call(t.app, 'GET', `${base}/dashboard`, { token: owner.token })

    const before = await counted('/dashboard')
    const answers = await Promise.all(Array.from({ length: 6 }, () => call(t.app, 'GET', `${base}/dashboard?days=7`, { token: owner.token })))
    const after = await counted('/dashboard')
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1)
    expect(answers[0].body.for_you.open_tasks).toBe(1)
    expect(after.computed - before.computed).toBe(1)
    expect(after.shared - before.shared).toBe(5)
  })

  it('shows a write answered before a request, while identical reads are in flight all along', async () => {
    const owner = await createUser(t.ctx, 'Owner')
    const { companyId, base } = await companyOf(owner)
    await call(t.app, 'GET', `${base}/tasks`, { token: owner.token })
    const list = () => call(t.app, 'GET', `${base}/tasks?limit=500`, { token: owner.token })
    const dashboard = () => call(t.app, 'GET', `${base}/dashboard`, { token: owner.token })

    // Readers asking the same list and dashboard again and again, from before the first write to after the last.
    let writing = true
    const readers = Array.from({ length: 4 }, async () => {
      while (writing) await Promise.all([list(), dashboard()])
    })
    try {
      for (let i = 1; i <= 15; i++) {
        const created = await createTask(t.app, owner.token, companyId, { title: `Written ${i}` })
        const [seen, board] = await Promise.all([list(), dashboard()])
        expect(seen.body.map((task: { id: string }) => task.id)).toContain(created.id)
        expect(board.body.for_you.open_tasks).toBe(i)
      }
    } finally {
      writing = false
      await Promise.all(readers)
    }
    const shared = await counted('/tasks')
    expect(shared.shared).toBeGreaterThan(0)
  })

  it('keys a read by the rights of who asks: person, role and run', () => {
    const asking = (userId: string, role: string, runId?: string) =>
      ({ principal: { user: { id: userId }, ...(runId ? { run: { runId } } : {}) }, membership: { companyId: 'c', role } }) as unknown as FastifyRequest
    const keys = [asking('u1', 'owner'), asking('u2', 'owner'), asking('u1', 'member'), asking('u1', 'owner', 'r1'), asking('u1', 'owner', 'r2')].map(rightsKey)
    expect(new Set(keys).size).toBe(keys.length)
    expect(rightsKey(asking('u1', 'owner'))).toBe(keys[0])
  })
})
