import { pgbench, pgbenchInit } from '../ceilings/pgbench.ts'
import { type Child, cpuSeconds, postgresCpuSeconds, runLoad, startBareServer } from '../lib/processes.ts'
import { dropDatabase, recreateDatabase } from '../lib/postgres.ts'
import { LOAD_COLUMNS, loadCells, num, ms, type Section } from '../lib/report.ts'
import { type Bench, type Ceilings, closedLoop } from './context.ts'

/**
 * The machine's ceilings: a bare Fastify route answering a constant, one doing one primary-key
 * SELECT through `pg`, both under the workloads' load settings; workload 3's runner loops
 * against bare routes that each commit one single-row update (the cheapest a claim, a progress
 * report and a final report could be); and pgbench's select-only and default scripts on the
 * same PostgreSQL server. The bare server and the ceilings' database stay until the run
 * calls `close` (for Ceilings.oneSelectAgain and tpcbAgain); an idle Fastify costs nothing the
 * workloads would see.
 */
export async function measureCeilings(bench: Bench): Promise<{ ceilings: Ceilings; section: Section; close(): Promise<void> }> {
  const url = await recreateDatabase(bench.pg, bench.db('ceiling'))
  let bare: Child | null = null
  const close = async () => {
    await bare?.stop()
    await dropDatabase(bench.pg, bench.db('ceiling'))
  }
  try {
    const { scale, clients, seconds, transactions } = bench.sizes.pgbench
    bench.log(`ceilings: pgbench scale ${scale}`)
    await pgbenchInit(url, scale)
    const selectOnly = await pgbench(url, 'select-only', bench.sizes.pgbench)
    const tpcb = await pgbench(url, 'default', bench.sizes.pgbench)

    bench.log('ceilings: bare Fastify')
    const { runners, runs, maxSeconds } = bench.sizes.runs
    const server = (bare = await startBareServer(url, runs))
    const constant = await runLoad(closedLoop(bench, server.url, [{ method: 'GET', path: '/constant' }]))
    const rows = Array.from({ length: 1000 }, (_, i) => ({ method: 'GET', path: `/row/${i + 1}` }))
    const oneSelectAgain = () => runLoad(closedLoop(bench, server.url, rows))
    const oneSelect = await oneSelectAgain()
    const cpu0 = { server: cpuSeconds(server.pid)!, postgres: postgresCpuSeconds() }
    const runnerCycle = await runLoad({ mode: 'runners', base: server.url, companyId: 'bare', apiKey: 'bare', runners, total: runs, seconds: maxSeconds })
    const finished = Math.max(1, runnerCycle.extra!.finished)
    const runnerCycleCpu = {
      serverMs: ((cpuSeconds(server.pid)! - cpu0.server) * 1000) / finished,
      postgresMs: ((postgresCpuSeconds() - cpu0.postgres) * 1000) / finished,
    }
    const cycles = runnerCycle.extra!
    const tpcbAgain = () => pgbench(url, 'default', bench.sizes.pgbench)
    const ceilings = { constant, oneSelect, oneSelectAgain, runnerCycle, runnerCycleCpu, selectOnly, tpcb, tpcbAgain }
    return {
      close,
      ceilings,
      section: {
        title: 'Ceilings of this machine',
        columns: ['ceiling', ...LOAD_COLUMNS],
        rows: [
          ['bare Fastify, constant answer', ...loadCells(constant)],
          ['bare Fastify, one primary-key SELECT through pg', ...loadCells(oneSelect)],
          [`bare Fastify, runner cycle: three one-row updates, ${runners} runners`, ...loadCells(runnerCycle)],
          [`pgbench select-only (-S), ${clients} clients`, num(selectOnly.tps), '', `${ms(selectOnly.latencyMs)} (average)`, ''],
          [`pgbench default script (TPC-B-like), ${clients} clients`, num(tpcb.tps), '', `${ms(tpcb.latencyMs)} (average)`, ''],
        ],
        verdicts: [],
        notes: [
          `pgbench transactions per second are in the requests/s column; pgbench reports an average latency, not percentiles.`,
          `pgbench scale ${scale} (${(scale * 100_000).toLocaleString('en-US')} accounts), ${clients} clients on 2 threads, ` +
            `${transactions ? `${transactions} transactions per client` : `${seconds} s`} per script.`,
          `Runner cycle: workload 3's ${runners} runner loops (the same generator code) claim, report and finish ${runs.toLocaleString('en-US')} jobs through ` +
            `three bare routes, each one committed single-row update (the claim takes the oldest queued job with SKIP LOCKED): ` +
            `${num(cycles.finishedPerSecond)} finished cycles per second, ${cycles.doubleClaims} double claims. ` +
            `It is what a finished run costs at the least on this machine: three HTTP requests and three commits, with none of a run's other writes. ` +
            `CPU per cycle: the bare server ${runnerCycleCpu!.serverMs.toFixed(2)} ms, PostgreSQL ${runnerCycleCpu!.postgresMs.toFixed(2)} ms (all its processes, from /proc).`,
        ],
      },
    }
  } catch (err) {
    await close()
    throw err
  }
}
