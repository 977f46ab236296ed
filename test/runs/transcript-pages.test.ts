// A long run's transcript read a page at a time: GET /runs/{id}/transcript?after=N&limit=M
// answers the entries after the first N, at most M, with transcript_total, and GET /runs/{id}
// says transcript_total too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, type TestApp, testApp } from '../helpers.ts'
import { claim } from '../agents/support.ts'
import { seedAgent, seedCompany, seedTask } from './seed.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

describe('GET /runs/{run_id}/transcript', () => {
  it('pages through every entry with transcript_total; another company is 404; limit is 1 to 2,000', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s, { name: 'Pager' })
    await seedTask(t, s, { title: 'Long work', assignee: agent })
    const { run } = await claim(t, s, agent)
    const transcript = Array.from({ length: 7 }, (_, i) => ({ role: 'agent', text: `line ${i}` }))
    const report = await call(t.app, 'PATCH', `${s.base}/runs/${run.id}`, { token: s.user.token, body: { runner_id: 'test-runner', transcript } })
    expect(report.status).toBe(200)

    const whole = await call(t.app, 'GET', `${s.base}/runs/${run.id}`, { token: s.user.token })
    const total = whole.body.transcript_total
    expect(total).toBe(whole.body.transcript.length)
    expect(total).toBeGreaterThanOrEqual(7)

    const page = await call(t.app, 'GET', `${s.base}/runs/${run.id}/transcript?after=${total - 5}&limit=2`, { token: s.user.token })
    expect(page.status).toBe(200)
    expect(page.body.transcript_total).toBe(total)
    expect(page.body.entries.map((e: any) => e.text)).toEqual(['line 2', 'line 3'])
    const rest = await call(t.app, 'GET', `${s.base}/runs/${run.id}/transcript?after=${total - 1}`, { token: s.user.token })
    expect(rest.body.entries.map((e: any) => e.text)).toEqual(['line 6'])
    expect((await call(t.app, 'GET', `${s.base}/runs/${run.id}/transcript?after=${total}`, { token: s.user.token })).body.entries).toEqual([])

    const other = await seedCompany(t)
    expect((await call(t.app, 'GET', `${other.base}/runs/${run.id}/transcript`, { token: other.user.token })).status).toBe(404)
    for (const limit of [0, 2001]) {
      expect((await call(t.app, 'GET', `${s.base}/runs/${run.id}/transcript?limit=${limit}`, { token: s.user.token })).status).toBe(422)
    }
  })
})
