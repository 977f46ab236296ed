import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCompany, hireAgent } from '../fixtures.ts'
import { call, createUser, type TestApp, testApp } from '../helpers.ts'
import { countRows } from './support.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

describe('task numbers under concurrency', () => {
  it('50 parallel creates in one company get 50 distinct consecutive numbers, each with its run and audit', async () => {
    const user = await createUser(t.ctx)
    const company = await createCompany(t.app, user.token)
    const agent = await hireAgent(t.app, user.token, company.id)
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(t.app, 'POST', `/api/companies/${company.id}/tasks`, {
          token: user.token, body: { title: `Parallel ${i}`, assignee_agent_id: agent.id },
        }),
      ),
    )
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201))
    const numbers = results.map((r) => r.body.number).sort((a, b) => a - b)
    expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
    expect(new Set(results.map((r) => r.body.key)).size).toBe(50)
    expect(await countRows(t.ctx, 'runs', company.id)).toBe(50)
    // company created + agent hired + 50 tasks created + 50 runs queued
    expect(await countRows(t.ctx, 'audit_events', company.id)).toBe(102)
  })

  it('parallel creates whose audit instants collide are retried whole: every task once, with its run and two events', async () => {
    const user = await createUser(t.ctx)
    const company = await createCompany(t.app, user.token)
    const agent = await hireAgent(t.app, user.token, company.id)
    // A newest event ahead of the clock makes every create pick its audit instant from it, so
    // creates racing other writes of the company (goals here) lose instants and start over.
    await t.ctx.db.query(
      `INSERT INTO audit_events (company_id, actor_type, actor_name, verb, entity_type, created_at)
       VALUES ($1, 'system', 'system', 'updated', 'company', now() + interval '1 minute')`,
      [company.id],
    )
    const base = `/api/companies/${company.id}`
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => i % 3
      ? call(t.app, 'POST', `${base}/tasks`, { token: user.token, body: { title: `Raced ${i}`, assignee_agent_id: agent.id } })
      : call(t.app, 'POST', `${base}/goals`, { token: user.token, body: { title: `Goal ${i}` } })))
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(201))
    const tasks = results.filter((r) => r.body.key)
    expect(tasks.map((r) => r.body.number).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
    expect(await countRows(t.ctx, 'tasks', company.id)).toBe(20)
    expect(await countRows(t.ctx, 'runs', company.id)).toBe(20)
    const events = await t.ctx.db.many<{ verb: string; n: number; stamps: number }>(
      `SELECT verb, count(*)::int AS n, count(DISTINCT created_at)::int AS stamps FROM audit_events
        WHERE company_id = $1 AND verb IN ('created', 'queued') AND entity_type IN ('task', 'run', 'goal') GROUP BY verb ORDER BY verb`,
      [company.id],
    )
    expect(events).toEqual([{ verb: 'created', n: 30, stamps: 30 }, { verb: 'queued', n: 20, stamps: 20 }])
  })

  it('failed creates in parallel with good ones consume no numbers', async () => {
    const user = await createUser(t.ctx)
    const company = await createCompany(t.app, user.token)
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(t.app, 'POST', `/api/companies/${company.id}/tasks`, {
          token: user.token,
          body: i % 2 ? { title: `Bad ${i}`, due_date: '0000-01-01' } : { title: `Good ${i}` },
        }),
      ),
    )
    expect(results.filter((r) => r.status === 201)).toHaveLength(10)
    expect(results.filter((r) => r.status === 422)).toHaveLength(10)
    const numbers = results.filter((r) => r.status === 201).map((r) => r.body.number).sort((a, b) => a - b)
    expect(numbers).toEqual(Array.from({ length: 10 }, (_, i) => i + 1))
  })
})
