// Runners against a real server process: two runners racing for 1,000 queued runs (each run is
// claimed exactly once, every run finishes), and a runner that dies holding a run (its lease
// runs out, the run fails as the spec says, and the agent's next run is claimed by another).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openPostgres } from '../../src/server/db/postgres.ts'
import { type ServerProcess, startServer } from '../server-process.ts'
import { hasPostgresBinaries, type OwnPostgres, ownPostgres } from './postgres-cluster.ts'
import { http, makeOwner, type Owner, waitFor } from './support.ts'

const AGENTS = 50
const RUNS_PER_AGENT = 20 // 1,000 runs

/** Queues one run per task for each agent (only one identical run may be queued). */
async function queueRuns(url: string, owner: Owner, agents: number, perAgent: number): Promise<string[]> {
  const ids: string[] = []
  await Promise.all(
    Array.from({ length: agents }, async (_, a) => {
      const agent = await http(url, 'POST', `${owner.base}/agents`, owner.token, { name: `Racer ${a}` })
      if (agent.status !== 201) throw new Error(`hire: ${agent.status} ${agent.text}`)
      ids.push(agent.body.id)
      for (let i = 0; i < perAgent; i++) {
        const task = await http(url, 'POST', `${owner.base}/tasks`, owner.token, { title: `Race ${a}.${i}` })
        const woken = await http(url, 'POST', `${owner.base}/agents/${agent.body.id}/wake`, owner.token, { task_id: task.body.id })
        if (woken.status !== 201) throw new Error(`wake: ${woken.status} ${woken.text}`)
      }
    }),
  )
  return ids
}

describe.runIf(hasPostgresBinaries())('runners', () => {
  let pg: OwnPostgres
  let server: ServerProcess
  beforeAll(async () => {
    pg = await ownPostgres()
    server = await startServer(
      { DATABASE_URL: pg.url, ENVIRONMENT: 'test', SCHEDULER: 'on', RUN_LEASE_SECONDS: '2', STALE_SWEEP_SECONDS: '1' },
      { timeoutMs: 120_000 },
    )
  })
  afterAll(async () => {
    await server?.stop()
    await pg?.destroy()
  })

  it(`two runners racing for ${AGENTS * RUNS_PER_AGENT} runs claim each exactly once`, async () => {
    const owner = await makeOwner(server.url)
    await queueRuns(server.url, owner, AGENTS, RUNS_PER_AGENT)
    const claimed: string[] = []
    const failures: string[] = []
    const runner = async (name: string) => {
      for (let idle = 0; idle < 20; ) {
        const r = await http(server.url, 'POST', `${owner.base}/runs/claim`, owner.token, { runner_id: name })
        if (r.status === 204) {
          idle++
          await new Promise((resolve) => setTimeout(resolve, 50))
          continue
        }
        if (r.status !== 200) {
          failures.push(`claim ${r.status} ${r.text.slice(0, 200)}`)
          continue
        }
        idle = 0
        claimed.push(r.body.run.id)
        const done = await http(server.url, 'PATCH', `${owner.base}/runs/${r.body.run.id}`, owner.token, { runner_id: name, status: 'succeeded' })
        if (done.status !== 200) failures.push(`report ${done.status} ${done.text.slice(0, 200)}`)
      }
    }
    await Promise.all([runner('racer-a'), runner('racer-b')])
    expect(failures).toEqual([])
    expect(claimed).toHaveLength(AGENTS * RUNS_PER_AGENT)
    expect(new Set(claimed).size).toBe(claimed.length)
    const db = openPostgres(pg.url, undefined, 1)
    try {
      const rows = await db.many('SELECT status, count(*)::int AS n FROM runs WHERE company_id = $1 GROUP BY status', [owner.companyId])
      expect(rows).toEqual([{ status: 'succeeded', n: AGENTS * RUNS_PER_AGENT }])
    } finally {
      await db.close()
    }
  })

  it('a runner that dies holding a run: the lease runs out, the run fails, another runner takes the next', async () => {
    const owner = await makeOwner(server.url)
    const [agent] = await queueRuns(server.url, owner, 1, 2)
    // The first runner claims and then is gone: no heartbeat, no report.
    const lost = await http(server.url, 'POST', `${owner.base}/runs/claim`, owner.token, { runner_id: 'doomed' })
    expect(lost.status).toBe(200)
    const run = await waitFor(async () => {
      const r = await http(server.url, 'GET', `${owner.base}/runs/${lost.body.run.id}`, owner.token)
      return r.body.status === 'failed' ? r.body : null
    }, 'the lease to run out and the sweep to fail the run', 30_000)
    expect(run.error).toMatch(/lease/)
    // The agent's other run is claimable by a live runner.
    const next = await waitFor(async () => {
      const r = await http(server.url, 'POST', `${owner.base}/runs/claim`, owner.token, { runner_id: 'survivor' })
      return r.status === 200 ? r.body : null
    }, 'the next run', 30_000)
    expect(next.agent.id).toBe(agent)
    expect(next.run.id).not.toBe(lost.body.run.id)
  })
})
