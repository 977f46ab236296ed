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
