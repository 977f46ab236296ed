// Eight runners claiming at once (truly parallel on PostgreSQL: each request has its own pool
// connection). They must never receive the same run, and never hold two running runs of one agent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, type TestApp, testApp } from '../helpers.ts'
import { type Seeded, seedAgent, seedCompany, seedTask } from './seed.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

const AGENTS = 12
const RUNS_PER_AGENT = 6
const RUNNERS = 8

/** Queues `count` runs of the agent, one per task (only one identical run may be queued). */
async function queueRuns(s: Seeded, agent: string, count: number) {
  for (let i = 0; i < count; i++) {
    const task = await seedTask(t, s)
    const r = await call(t.app, 'POST', `${s.base}/agents/${agent}/wake`, { token: s.user.token, body: { task_id: task } })
    expect(r.status).toBe(201)
  }
}

describe('parallel claims', () => {
  it('claims whose audit instants collide with other writes are tried again, not lost or failed', async () => {
    const s = await seedCompany(t)
    const agents: string[] = []
    for (let a = 0; a < 6; a++) {
      const agent = await seedAgent(t, s, { name: `Collider ${a}` })
      agents.push(agent)
      await queueRuns(s, agent, 1)
    }
    // A newest event ahead of the clock: every write of the company then picks its audit instant
    // from it, so the claims and the goal creates racing them keep meeting on the same instants.
    await t.ctx.db.query(
      `INSERT INTO audit_events (company_id, actor_type, actor_name, verb, entity_type, created_at)
       VALUES ($1, 'system', 'system', 'updated', 'company', now() + interval '1 minute')`,
      [s.companyId],
    )
    const answers = await Promise.all([
      ...agents.map((_, i) => call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body: { runner_id: `c${i}` } })),
      ...agents.map((_, i) => call(t.app, 'POST', `${s.base}/goals`, { token: s.user.token, body: { title: `Goal ${i}` } })),
    ])
    expect(answers.map((r) => r.status)).toEqual([...agents.map(() => 200), ...agents.map(() => 201)])
    const runIds = answers.slice(0, agents.length).map((r) => r.body.run.id)
    expect(new Set(runIds).size).toBe(agents.length)
    const started = await t.ctx.db.one<{ n: number; instants: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT created_at)::int AS instants FROM audit_events
        WHERE company_id = $1 AND verb IN ('started', 'moved')`,
      [s.companyId],
    )
    expect(started).toEqual({ n: 2 * agents.length, instants: 2 * agents.length })
  })

  it('finishing reports whose audit instants collide with other writes are tried again, not failed', async () => {
    const s = await seedCompany(t)
    const held: { runId: string; runner: string }[] = []
    for (let a = 0; a < 6; a++) {
      const agent = await seedAgent(t, s, { name: `Finisher ${a}` })
      await queueRuns(s, agent, 1)
      const runner = `f${a}`
      const claimed = await call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body: { runner_id: runner } })
      held.push({ runId: claimed.body.run.id, runner })
    }
    // As above: every write of the company picks its audit instant from this newest event.
    await t.ctx.db.query(
      `INSERT INTO audit_events (company_id, actor_type, actor_name, verb, entity_type, created_at)
       VALUES ($1, 'system', 'system', 'updated', 'company', now() + interval '1 minute')`,
      [s.companyId],
    )
    const answers = await Promise.all([
      ...held.map((h) =>
        call(t.app, 'PATCH', `${s.base}/runs/${h.runId}`, { token: s.user.token, body: { runner_id: h.runner, status: 'succeeded' } }),
      ),
      ...held.map((_, i) => call(t.app, 'POST', `${s.base}/goals`, { token: s.user.token, body: { title: `Goal ${i}` } })),
    ])
    expect(answers.map((r) => r.status)).toEqual([...held.map(() => 200), ...held.map(() => 201)])
    const finished = await t.ctx.db.one<{ n: number; runs: number; instants: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT entity_id)::int AS runs, count(DISTINCT created_at)::int AS instants
         FROM audit_events WHERE company_id = $1 AND verb = 'succeeded'`,
      [s.companyId],
    )
    expect(finished).toEqual({ n: held.length, runs: held.length, instants: held.length })
  })

  it(`${RUNNERS} runners share ${AGENTS * RUNS_PER_AGENT} queued runs without overlap`, async () => {
    const s = await seedCompany(t)
    for (let a = 0; a < AGENTS; a++) {
      const agent = await seedAgent(t, s, { name: `Agent ${a}` })
      await queueRuns(s, agent, RUNS_PER_AGENT)
    }

    const claimed: string[] = []
    const violations: string[] = []
    const runner = async (name: string) => {
      for (;;) {
        const r = await call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body: { runner_id: name } })
        if (r.status === 204) {
          // Nothing claimable right now; done only when nothing is queued or running at all.
          const left = await t.ctx.db.one("SELECT count(*)::int AS n FROM runs WHERE company_id = $1 AND status IN ('queued', 'running')", [s.companyId])
          if (left!.n === 0) return
          await new Promise((resolve) => setTimeout(resolve, 5))
          continue
        }
        expect(r.status).toBe(200)
        const { run, agent } = r.body
        claimed.push(run.id)
        // Until this runner reports, its run must be the agent's only running run.
        const running = await t.ctx.db.many("SELECT id FROM runs WHERE agent_id = $1 AND status = 'running'", [agent.id])
        if (running.length !== 1 || running[0].id !== run.id) violations.push(`${agent.name}: ${running.length} running`)
        const done = await call(t.app, 'PATCH', `${s.base}/runs/${run.id}`, { token: s.user.token, body: { runner_id: name, status: 'succeeded' } })
        expect(done.status).toBe(200)
      }
    }
    await Promise.all(Array.from({ length: RUNNERS }, (_, i) => runner(`runner-${i}`)))

    expect(violations).toEqual([])
    expect(claimed).toHaveLength(AGENTS * RUNS_PER_AGENT)
    expect(new Set(claimed).size).toBe(claimed.length)
    const rows = await t.ctx.db.many('SELECT status, count(*)::int AS n FROM runs WHERE company_id = $1 GROUP BY status', [s.companyId])
    expect(rows).toEqual([{ status: 'succeeded', n: AGENTS * RUNS_PER_AGENT }])
    const agents = await t.ctx.db.many("SELECT DISTINCT status FROM agents WHERE company_id = $1", [s.companyId])
    expect(agents).toEqual([{ status: 'idle' }])
  })

  it('two claims racing for one agent never both win', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s)
    await queueRuns(s, agent, RUNNERS)
    const answers = await Promise.all(
      Array.from({ length: RUNNERS }, (_, i) => call(t.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body: { runner_id: `r${i}` } })),
    )
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1)
    expect(answers.filter((a) => a.status === 204)).toHaveLength(RUNNERS - 1)
    const running = await t.ctx.db.one("SELECT count(*)::int AS n FROM runs WHERE agent_id = $1 AND status = 'running'", [agent])
    expect(running!.n).toBe(1)
  })

  it('claims, reports, wakes, pauses and sweeps racing each other never fail with a server error', async () => {
    const s = await seedCompany(t)
    const agents: string[] = []
    const tasks: string[] = []
    for (let a = 0; a < 4; a++) agents.push(await seedAgent(t, s))
    for (let i = 0; i < 4; i++) tasks.push(await seedTask(t, s))
    const answers: number[] = []
    const record = (r: { status: number; body: any }) => {
      answers.push(r.status)
      if (r.status >= 500) throw new Error(JSON.stringify(r.body))
      return r
    }
    const post = (path: string, body?: unknown) => call(t.app, 'POST', `${s.base}${path}`, { token: s.user.token, body }).then(record)
    const runner = async (name: string) => {
      for (let i = 0; i < 12; i++) {
        const r = await post('/runs/claim', { runner_id: name })
        if (r.status === 200) {
          await call(t.app, 'PATCH', `${s.base}/runs/${r.body.run.id}`, { token: s.user.token, body: { runner_id: name, status: 'succeeded', cost_cents: 1 } }).then(record)
        }
      }
    }
    const waker = async () => {
      for (let i = 0; i < 24; i++) await post(`/agents/${agents[i % 4]}/wake`, { task_id: tasks[(i >> 2) % 4] })
    }
    const pauser = async () => {
      for (let i = 0; i < 6; i++) {
        await post(`/agents/${agents[i % 4]}/pause`)
        await post(`/agents/${agents[i % 4]}/resume`)
      }
    }
    const sweeper = async () => {
      for (let i = 0; i < 8; i++) await post('/runs/expire-stale')
    }
    await Promise.all([runner('a'), runner('b'), runner('c'), waker(), waker(), pauser(), sweeper()])
    expect(answers.filter((status) => status >= 500)).toEqual([])
    const running = await t.ctx.db.many(
      "SELECT agent_id FROM runs WHERE company_id = $1 AND status = 'running' GROUP BY agent_id HAVING count(*) > 1",
      [s.companyId],
    )
    expect(running).toEqual([])
  })
})
