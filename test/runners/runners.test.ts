import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createUser, type TestApp, testApp } from '../helpers.ts'
import { type Seeded, seedAgent, seedCompany, seedTask } from '../runs/seed.ts'

const LEASE = 120
let t: TestApp
beforeAll(async () => {
  t = await testApp({ runLeaseSeconds: LEASE })
})
afterAll(async () => t?.close())

const claim = (app: TestApp, s: Seeded, body: Record<string, unknown>) =>
  call(app.app, 'POST', `${s.base}/runs/claim`, { token: s.user.token, body })
const runners = (s: Seeded, token = s.user.token) => call(t.app, 'GET', `${s.base}/runners`, { token })

/** The stored sighting, with the row version so a test can tell whether anything was written. */
const stored = (s: Seeded, runnerId: string) =>
  t.ctx.db.one<{ last_seen_at: string; version: string }>(
    'SELECT last_seen_at, xmin::text AS version FROM runners WHERE company_id = $1 AND runner_id = $2',
    [s.companyId, runnerId],
  )

describe('GET /runners', () => {
  it('lists a runner heard from on a claim, with what it offers and the runs it holds, named', async () => {
    const s = await seedCompany(t, { prefix: 'RNR' })
    expect((await runners(s)).body).toEqual([])
    const agent = await seedAgent(t, s, { name: 'Ada', adapter: 'agent_cli_2' })
    const task = await seedTask(t, s, { title: 'Write the report', assignee: agent })
    const versions = { codex: '0.46.0', claude: '2.0.14' }
    const r = await claim(t, s, { runner_id: 'box-1', adapters: ['agent_cli_2', 'agent_cli_1'], versions })
    expect(r.status).toBe(200)

    const list = await runners(s)
    expect(list.status).toBe(200)
    expect(list.body).toEqual([{
      runner_id: 'box-1',
      adapters: ['agent_cli_1', 'agent_cli_2'],
      versions,
      first_seen_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      last_seen_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      status: 'online',
      cooldowns: [],
      running_runs: [{
        id: r.body.run.id, agent_id: agent, agent_name: 'Ada', task_id: task, task_key: 'RNR-1',
        task_title: 'Write the report', started_at: expect.any(String),
      }],
    }])
    // The same instant (the claim answer's text may drop trailing zeros of the microseconds).
    expect(Date.parse(list.body[0].running_runs[0].started_at)).toBe(Date.parse(r.body.run.started_at))
  })

  it('a runner that says goodbye reads stopped at once, and online again when it next claims', async () => {
    const s = await seedCompany(t)
    expect((await claim(t, s, { runner_id: 'dana@laptop' })).status).toBe(204)
    const bye = await call(t.app, 'POST', `${s.base}/runners/${encodeURIComponent('dana@laptop')}/goodbye`, { token: s.user.token })
    expect(bye.status).toBe(204)
    expect((await runners(s)).body).toEqual([expect.objectContaining({ runner_id: 'dana@laptop', status: 'stopped' })])
    // A goodbye from a runner never heard from changes nothing.
    expect((await call(t.app, 'POST', `${s.base}/runners/never-seen/goodbye`, { token: s.user.token })).status).toBe(204)
    expect((await runners(s)).body).toHaveLength(1)
    // Started again under the same name, at once (the goodbye forgot the recent sighting).
    expect((await claim(t, s, { runner_id: 'dana@laptop' })).status).toBe(204)
    expect((await runners(s)).body).toEqual([expect.objectContaining({ runner_id: 'dana@laptop', status: 'online' })])
    // Another company's member cannot touch it.
    const stranger = await createUser(t.ctx)
    expect((await call(t.app, 'POST', `${s.base}/runners/dana@laptop/goodbye`, { token: stranger.token })).status).toBe(404)
  })

  it('records a claim that found nothing to run, and a runner claiming for every adapter has adapters null', async () => {
    const s = await seedCompany(t)
    expect((await claim(t, s, { runner_id: 'idle-box' })).status).toBe(204)
    expect((await runners(s)).body).toEqual([expect.objectContaining({ runner_id: 'idle-box', adapters: null, versions: {}, running_runs: [] })])
  })

  it('shows a runner silent for more than two lease lengths as gone, and leaves out one silent for a day', async () => {
    const s = await seedCompany(t)
    for (const id of ['quiet', 'gone', 'ancient']) expect((await claim(t, s, { runner_id: id })).status).toBe(204)
    const back = (id: string, seconds: number) => t.ctx.db.query(
      `UPDATE runners SET last_seen_at = now() - make_interval(secs => $3) WHERE company_id = $1 AND runner_id = $2`,
      [s.companyId, id, seconds],
    )
    await back('quiet', 2 * LEASE - 10)
    await back('gone', 2 * LEASE + 10)
    await back('ancient', 25 * 3600)
    const list = (await runners(s)).body
    expect(list.map((x: any) => [x.runner_id, x.status])).toEqual([['quiet', 'online'], ['gone', 'gone']])
  })

  it('writes a sighting at most once every few seconds, from this process and from another one', async () => {
    const s = await seedCompany(t)
    // Other API processes (their own memory) on the same database, started before the first
    // sighting: starting one takes seconds on a busy machine, longer than the interval itself.
    const other = await testApp({ runLeaseSeconds: LEASE }, { db: t.ctx.db })
    const third = await testApp({ runLeaseSeconds: LEASE }, { db: t.ctx.db })
    try {
      expect((await claim(t, s, { runner_id: 'busy' })).status).toBe(204)
      const first = await stored(s, 'busy')
      expect((await claim(t, s, { runner_id: 'busy' })).status).toBe(204)
      expect(await stored(s, 'busy')).toEqual(first) // nothing written

      // From another process: the statement's guard holds.
      expect((await claim(other, s, { runner_id: 'busy' })).status).toBe(204)
      expect(await stored(s, 'busy')).toEqual(first)
      // Once the stored sighting is older than the interval, the next one refreshes it.
      await t.ctx.db.query(`UPDATE runners SET last_seen_at = now() - interval '10 seconds' WHERE company_id = $1`, [s.companyId])
      const old = await stored(s, 'busy')
      expect((await claim(third, s, { runner_id: 'busy' })).status).toBe(204)
      const fresh = await stored(s, 'busy')
      expect(Date.parse(fresh!.last_seen_at)).toBeGreaterThan(Date.parse(old!.last_seen_at))
    } finally {
      await other.app.close()
      await third.app.close()
    }
  })

  it('records a new offer at once, and a heartbeat refreshes a sighting without changing the offer', async () => {
    const s = await seedCompany(t)
    const agent = await seedAgent(t, s, { adapter: 'agent_cli_1' })
    await seedTask(t, s, { assignee: agent })
    expect((await claim(t, s, { runner_id: 'box', adapters: ['agent_cli_3'] })).status).toBe(204)
    const r = await claim(t, s, { runner_id: 'box', adapters: ['agent_cli_1'], versions: { claude: '2.0.14' } })
    expect(r.status).toBe(200)
    expect((await runners(s)).body[0]).toMatchObject({ adapters: ['agent_cli_1'], versions: { claude: '2.0.14' } })

    const other = await testApp({ runLeaseSeconds: LEASE }, { db: t.ctx.db })
    try {
      await t.ctx.db.query(`UPDATE runners SET last_seen_at = now() - interval '1 hour' WHERE company_id = $1`, [s.companyId])
      const hb = await call(other.app, 'POST', `${s.base}/runs/${r.body.run.id}/heartbeat`, { token: s.user.token, body: { runner_id: 'box' } })
      expect(hb.status).toBe(200)
      const row = (await runners(s)).body[0]
      expect(Date.now() - Date.parse(row.last_seen_at)).toBeLessThan(60_000)
      expect(row).toMatchObject({ adapters: ['agent_cli_1'], versions: { claude: '2.0.14' } })
      // A heartbeat for a run the runner does not hold is refused and is no sighting: any
      // runner_id could be typed there, and the list would show a runner that never ran.
      const ghost = await call(other.app, 'POST', `${s.base}/runs/${r.body.run.id}/heartbeat`, { token: s.user.token, body: { runner_id: 'ghost' } })
      expect(ghost.body.error.code).toBe('RUN_LEASE_LOST')
      expect(await stored(s, 'ghost')).toBeNull()
    } finally {
      await other.app.close()
    }
  })

  it('refuses versions that are not text, and hides a company from non-members', async () => {
    const s = await seedCompany(t)
    const bad = await claim(t, s, { runner_id: 'box', versions: { claude: 2 } })
    expect(bad.status).toBe(422)
    expect(bad.body.error.code).toBe('VALIDATION_ERROR')
    expect(bad.body.error.message).toContain('versions')
    expect((await runners(s)).body).toEqual([]) // a refused claim records nothing
    const stranger = await createUser(t.ctx)
    expect((await runners(s, stranger.token)).status).toBe(404)
  })
})
