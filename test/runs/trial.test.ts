// The one-click trial: a company's first run done by a simulated agent inside the server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createUser, type TestApp, testApp, waitFor } from '../helpers.ts'
import { seedAgent, seedCompany, seedTask } from './seed.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

const runsOf = async (base: string, token: string, taskId: string) =>
  (await call(t.app, 'GET', `${base}/runs?task_id=${taskId}`, { token })).body

describe('POST /runs/{run_id}/trial', () => {
  it('runs the first queued run with a simulated agent: transcript, a reply on the task, the task in review, nothing charged', async () => {
    const s = await seedCompany(t, { prefix: 'TRY' })
    const agent = await seedAgent(t, s, { name: 'Grace', adapter: 'agent_cli_1' })
    const task = await seedTask(t, s, { title: 'Write the README', assignee: agent })
    const [queued] = await runsOf(s.base, s.user.token, task)
    expect(queued.status).toBe('queued')

    const r = await call(t.app, 'POST', `${s.base}/runs/${queued.id}/trial`, { token: s.user.token })
    expect(r.status).toBe(202)
    expect(r.body).toMatchObject({ id: queued.id, status: 'running', runner_id: 'Shopfloor trial (simulated)' })

    const done = await waitFor(async () => {
      const run = (await call(t.app, 'GET', `${s.base}/runs/${queued.id}`, { token: s.user.token })).body
      return run.status === 'succeeded' ? run : null
    }, 15_000)
    expect(done).toMatchObject({ cost_cents: 0, summary: expect.stringMatching(/^Simulated work done on TRY-1 "Write the README"/) })
    expect(done.transcript.map((e: { text: string }) => e.text)).toEqual([
      expect.stringMatching(/^Trial run: a simulated agent inside Shopfloor/),
      'Reading TRY-1 "Write the README" and its comments.',
      'Working on TRY-1 "Write the README" (simulated).',
      done.summary,
    ])
    const taskNow = (await call(t.app, 'GET', `${s.base}/tasks/TRY-1`, { token: s.user.token })).body
    expect(taskNow.status).toBe('in_review')
    const comments = (await call(t.app, 'GET', `${s.base}/tasks/TRY-1/comments`, { token: s.user.token })).body
    expect(comments).toEqual([expect.objectContaining({ body: done.summary, author_agent_id: agent, run_id: queued.id })])
    // The log credits the agent and the service, never the person who clicked.
    const log = (await call(t.app, 'GET', `${s.base}/activity?limit=50`, { token: s.user.token })).body
    const byRun = log.filter((e: { run_id: string | null; entity_type: string; entity_id: string }) => e.run_id === queued.id || (e.entity_type === 'run' && e.entity_id === queued.id))
    expect(byRun.length).toBeGreaterThan(0)
    // (The run was queued by the person's assignment: that one is theirs.)
    const doneInTrial = byRun.filter((e: { verb: string }) => e.verb !== 'queued')
    expect(doneInTrial.map((e: { verb: string; entity_type: string }) => `${e.entity_type} ${e.verb}`).sort()).toEqual(
      expect.arrayContaining(['comment created', 'run started', 'run succeeded']),
    )
    for (const event of doneInTrial) expect([event.actor_type, event.actor_name]).toEqual([expect.stringMatching(/^(agent|system)$/), 'Grace'])
  })

  it('is for a company\'s first run only, a queued run with a task, of this company; a stranger gets 404', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s, { name: 'Ada' })
    const first = await seedTask(t, s, { assignee: agent })
    const [run] = await runsOf(s.base, s.user.token, first)
    expect((await call(t.app, 'POST', `${s.base}/runs/${run.id}/trial`, { token: s.user.token })).status).toBe(202)
    await waitFor(async () => (await call(t.app, 'GET', `${s.base}/runs/${run.id}`, { token: s.user.token })).body.status === 'succeeded', 15_000)

    // Not twice: the trial shows the loop once, real work needs a runner.
    const again = await call(t.app, 'POST', `${s.base}/runs/${run.id}/trial`, { token: s.user.token })
    expect(again.status).toBe(400)
    expect(again.body.error).toMatchObject({ code: 'INVALID_STATE', message: expect.stringMatching(/only a queued run/i) })
    const second = await seedTask(t, s, { assignee: agent })
    const [next] = await runsOf(s.base, s.user.token, second)
    const refused = await call(t.app, 'POST', `${s.base}/runs/${next.id}/trial`, { token: s.user.token })
    expect(refused.status).toBe(400)
    expect(refused.body.error.message).toMatch(/first run.*connect a runner/)
    expect((await call(t.app, 'GET', `${s.base}/runs/${next.id}`, { token: s.user.token })).body.status).toBe('queued')

    const stranger = await createUser(t.ctx)
    expect((await call(t.app, 'POST', `${s.base}/runs/${next.id}/trial`, { token: stranger.token })).status).toBe(404)
    const other = await seedCompany(t)
    const missing = await call(t.app, 'POST', `${other.base}/runs/${next.id}/trial`, { token: other.user.token })
    expect(missing.status).toBe(404)
    expect(missing.body.error.message).toBe('Run not found')
  })

  it('refuses a run without a task (a wake) in words, leaving it queued', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s, { name: 'Lin' })
    const wake = await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: {} })
    expect(wake.status).toBeLessThan(300)
    const r = await call(t.app, 'POST', `${s.base}/runs/${wake.body.id}/trial`, { token: s.user.token })
    expect(r.status).toBe(400)
    expect(r.body.error.message).toMatch(/works on a task/)
  })
})
