import { createCompany } from '../lib/api.ts'
import { cpuSeconds, postgresCpuSeconds, runLoad } from '../lib/processes.ts'
import { withClient } from '../lib/postgres.ts'
import { LOAD_COLUMNS, loadCells, num, pct, type Section } from '../lib/report.ts'
import type { Bench, Ceilings } from './context.ts'
import type { Fixture } from './fixture.ts'

/**
 * Workload 3: `runners` runner loops (one generator process) claim, report and finish runs
 * until the queue is empty. The queue is seeded with SQL: `agents` agents with `runs` queued
 * runs between them, each on its own todo task (so the claim also moves the task). Targets:
 * at least 1,000 finished runs per second, and no run handed to two claims. The ratio to the
 * bare runner cycle measured in the same run (the ceilings') is a figure, no longer a target:
 * the bare cycle writes three rows, a run must write what SPEC.md requires (audit events, the
 * task's move, counters, events).
 */
export async function runsCycle(bench: Bench, f: Fixture, databaseUrl: string, serverPid: number, ceilings: Ceilings | null): Promise<Section> {
  const { runners, agents, runs, maxSeconds } = bench.sizes.runs
  const company = await createCompany(f.base, f.account.apiKey, 'Runner company', 'RUN')
  bench.log(`workload 3: seeding ${runs} queued runs of ${agents} agents`)
  await seedQueue(databaseUrl, company.id, agents, runs)

  bench.log(`workload 3: ${runners} runners`)
  // Committed transactions (a statement outside BEGIN counts as one) tell how much database
  // work one finished run costs, to set against pgbench's figures.
  const commits = () =>
    withClient(databaseUrl, async (c) => Number((await c.query('SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')).rows[0].xact_commit))
  const commitsBefore = await commits()
  const cpuBefore = cpuSeconds(serverPid)!
  const postgresBefore = postgresCpuSeconds()
  const result = await runLoad({ mode: 'runners', base: f.base, companyId: company.id, apiKey: f.account.apiKey, runners, total: runs, seconds: maxSeconds })
  const serverMsPerRun = ((cpuSeconds(serverPid)! - cpuBefore) * 1000) / Math.max(1, result.extra!.finished)
  const postgresMsPerRun = ((postgresCpuSeconds() - postgresBefore) * 1000) / Math.max(1, result.extra!.finished)
  // Backends flush their statistics at most once a second.
  await new Promise((r) => setTimeout(r, bench.sizes.statsWait.busy * 1000))
  const commitsPerRun = ((await commits()) - commitsBefore) / Math.max(1, result.extra!.finished)
  const db = await withClient(databaseUrl, async (c) =>
    (await c.query(
      `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
              count(*) FILTER (WHERE status = 'queued')::int AS queued,
              count(*) FILTER (WHERE status NOT IN ('succeeded', 'queued'))::int AS other
         FROM runs WHERE company_id = $1`,
      [company.id],
    )).rows[0] as { succeeded: number; queued: number; other: number },
  )
  const steps = await stepCosts(bench, f, databaseUrl, serverPid, commits)
  const extra = result.extra!
  const perSecond = extra.finishedPerSecond
  const complete = extra.finished >= runs
  const bare = ceilings?.runnerCycle.extra!.finishedPerSecond
  return {
    title: '3. Runners: claim, report, finish',
    columns: ['run', ...LOAD_COLUMNS, 'finished runs/s', 'double claims', 'ratio to the bare runner cycle'],
    rows: [[
      `${runners} runners, ${runs.toLocaleString('en-US')} queued runs of ${agents.toLocaleString('en-US')} agents`,
      ...loadCells(result), num(perSecond), String(extra.doubleClaims), bare ? pct(perSecond / bare) : '',
    ]],
    subtables: [{
      title: 'Step by step: one runner, one request at a time',
      columns: ['step', 'requests', 'server CPU ms per request', 'PostgreSQL CPU ms per request', 'commits per request'],
      rows: steps.map((s) => [s.step, String(s.requests), s.cpuMs.toFixed(2), s.postgresMs.toFixed(2), s.commits.toFixed(2)]),
    }],
    verdicts: [
      { target: '>= 1,000 finished runs per second', measured: `${num(perSecond)}/s${bare ? ` (bare runner cycle ${num(bare)}/s)` : ''}`, met: perSecond >= 1000 },
      { target: 'zero double claims', measured: String(extra.doubleClaims), met: extra.doubleClaims === 0 && extra.claims === extra.finished + extra.failures },
    ],
    notes: [
      ...(bare
        ? [`Finished runs/s against the bare runner cycle of the same run: ${pct(perSecond / bare)} (${num(perSecond)} against ${num(bare)}/s). ` +
          'A figure, not a target: the bare cycle writes three rows, a run writes what SPEC.md requires of it.']
        : []),
      `Requests/s and latencies count all three calls of a run (claim, progress report, final report); ${extra.emptyClaims} claims found nothing claimable (204).`,
      `The server process used ${serverMsPerRun.toFixed(2)} ms of CPU per finished run with 8 runners (utime + stime from /proc, over the whole pass); ` +
        `step by step (the table below: ${steps[0].requests} runs of another company claimed, then reported running, then finished, one request at a time) ` +
        `${steps.reduce((sum, s) => sum + s.cpuMs, 0).toFixed(2)} ms and ${steps.reduce((sum, s) => sum + s.commits, 0).toFixed(1)} commits per run.`,
      `PostgreSQL used ${postgresMsPerRun.toFixed(2)} ms of CPU per finished run with 8 runners (all its processes, from /proc), ` +
        `${steps.reduce((sum, s) => sum + s.postgresMs, 0).toFixed(2)} ms step by step.` +
        (ceilings
          ? ` The bare runner cycle took ${ceilings.runnerCycleCpu.serverMs.toFixed(2)} ms of its server's CPU and ${ceilings.runnerCycleCpu.postgresMs.toFixed(2)} ms of PostgreSQL's per cycle: ` +
            `a finished run costs ${(serverMsPerRun / ceilings.runnerCycleCpu.serverMs).toFixed(1)}x the server CPU and ${(postgresMsPerRun / ceilings.runnerCycleCpu.postgresMs).toFixed(1)}x the database CPU of the bare cycle, ` +
            `on two cores that the server, PostgreSQL and the load generator share.`
          : ''),
      `PostgreSQL committed ${commitsPerRun.toFixed(1)} transactions per finished run (statements outside a transaction count as one each), ` +
        `${num(commitsPerRun * perSecond)} per second in all.` +
        (ceilings
          ? ` At ${commitsPerRun.toFixed(1)} commits per run, 1,000 finished runs per second would take ${num(commitsPerRun * 1000)} commits per second, against ` +
            `${num(ceilings.tpcb.tps)} transactions per second of pgbench's default script (three updates, an insert and a select each) on the same server.`
          : ''),
      ...(bare
        ? [`The bare runner cycle (ceilings: the same runner loops, each request one committed single-row update) finished ${num(bare)} cycles per second on this machine in this run, ` +
            `${bare >= 1000 ? 'above' : 'below'} the 1,000 runs per second of the target.`]
        : []),
      `${complete ? 'All' : `Only ${extra.finished} of the`} ${runs.toLocaleString('en-US')} runs finished` +
        `${complete ? '' : ` within the ${maxSeconds} s cap`} in ${result.seconds.toFixed(1)} s; the database then held ${db.succeeded} succeeded, ${db.queued} queued and ${db.other} other runs for the company.`,
    ],
  }
}

interface StepCost {
  step: string
  requests: number
  cpuMs: number
  /** PostgreSQL's CPU (all its processes) per request. */
  postgresMs: number
  commits: number
}

/**
 * The cost of each step of a run, measured apart: `stepRuns` runs of a fresh company claimed one
 * after the other by one runner, then each reported running, then each finished, with the
 * server's CPU (from /proc) and the database's committed transactions read around each batch.
 * One request at a time, so the figures are the work of a request, not of waiting.
 */
async function stepCosts(bench: Bench, f: Fixture, databaseUrl: string, serverPid: number, commits: () => Promise<number>): Promise<StepCost[]> {
  const count = bench.sizes.runs.stepRuns
  const company = await createCompany(f.base, f.account.apiKey, 'Step company', 'STEP')
  await seedQueue(databaseUrl, company.id, count, count)
  bench.log(`workload 3: ${count} runs step by step`)
  const prefix = `${f.base}/api/companies/${company.id}/runs`
  const headers = { authorization: `Bearer ${f.account.apiKey}`, 'content-type': 'application/json' }
  const call = async (method: string, url: string, body: unknown) => {
    const res = await fetch(url, { method, headers, body: JSON.stringify(body) })
    const text = await res.text()
    if (res.status !== 200) throw new Error(`${method} ${url} answered ${res.status}: ${text.slice(0, 300)}`)
    return JSON.parse(text)
  }
  const runnerId = 'bench-step-runner'
  const measure = async (step: string, each: (i: number) => Promise<unknown>): Promise<StepCost> => {
    const commits0 = await commits()
    const cpu0 = cpuSeconds(serverPid)!
    const postgres0 = postgresCpuSeconds()
    for (let i = 0; i < count; i++) await each(i)
    const cpu = cpuSeconds(serverPid)! - cpu0
    const postgres = postgresCpuSeconds() - postgres0
    // A backend that goes idle reports its counts after at least a second since its last
    // report, or else 10 s later (PostgreSQL's PGSTAT_IDLE_INTERVAL): wait those out, so that
    // each batch's commits are counted with it.
    await new Promise((r) => setTimeout(r, bench.sizes.statsWait.idle * 1000))
    // Less the statement that read the counter before.
    return { step, requests: count, cpuMs: (cpu * 1000) / count, postgresMs: (postgres * 1000) / count, commits: ((await commits()) - commits0 - 1) / count }
  }
  const ids: string[] = []
  await new Promise((r) => setTimeout(r, bench.sizes.statsWait.idle * 1000)) // the pass before reports its counts
  const claim = await measure('claim (POST /runs/claim)', async () => ids.push((await call('POST', `${prefix}/claim`, { runner_id: runnerId })).run.id))
  const running = await measure('report running (PATCH, tokens and a transcript line)', (i) =>
    call('PATCH', `${prefix}/${ids[i]}`, { runner_id: runnerId, status: 'running', tokens_in: 100, tokens_out: 20, transcript: [{ text: 'working' }] }))
  const finish = await measure('report finish (PATCH, succeeded)', (i) =>
    call('PATCH', `${prefix}/${ids[i]}`, { runner_id: runnerId, status: 'succeeded', tokens_in: 100, tokens_out: 50, cost_cents: 1, summary: 'done' }))
  return [claim, running, finish]
}

/** `runs` queued runs of `agents` new agents, each on its own todo task, oldest first. */
async function seedQueue(databaseUrl: string, companyId: string, agents: number, runs: number): Promise<void> {
  await withClient(databaseUrl, async (c) => {
    await c.query(
      `INSERT INTO agents (company_id, name, adapter) SELECT $1, 'Runner agent ' || g, 'simulated' FROM generate_series(1, $2) g`,
      [companyId, agents],
    )
    await c.query(
      `WITH a AS (SELECT array_agg(id ORDER BY name) ids FROM agents WHERE company_id = $1)
       INSERT INTO tasks (company_id, number, title, status, assignee_agent_id)
       SELECT $1, g, 'Queued work ' || g, 'todo', a.ids[1 + g % $3] FROM generate_series(1, $2) g, a`,
      [companyId, runs, agents],
    )
    await c.query('UPDATE companies SET last_task_number = $2 WHERE id = $1', [companyId, runs])
    await c.query(
      `INSERT INTO runs (company_id, agent_id, task_id, status, trigger, created_at)
       SELECT $1, t.assignee_agent_id, t.id, 'queued', 'assignment', now() - make_interval(secs => ($2 - t.number) / 1000.0)
         FROM tasks t WHERE t.company_id = $1`,
      [companyId, runs],
    )
    // As autovacuum would leave the tables (the benchmark server may run without it): the
    // workloads before this one left dead row versions behind.
    await c.query('VACUUM ANALYZE')
  })
}
