import { pgbench, pgbenchInit } from '../ceilings/pgbench.ts'
import { runLoad, startBareServer } from '../lib/processes.ts'
import { dropDatabase, recreateDatabase } from '../lib/postgres.ts'
import { LOAD_COLUMNS, loadCells, num, ms, type Section } from '../lib/report.ts'
import { type Bench, type Ceilings, closedLoop } from './context.ts'

/**
 * The machine's ceilings: a bare Fastify route answering a constant, one doing one primary-key
 * SELECT through `pg`, both under the workloads' load settings; and pgbench's select-only and
 * default scripts on the same PostgreSQL server.
 */
export async function measureCeilings(bench: Bench): Promise<{ ceilings: Ceilings; section: Section }> {
  const url = await recreateDatabase(bench.pg, bench.db('ceiling'))
  try {
    const { scale, clients, seconds } = bench.sizes.pgbench
    bench.log(`ceilings: pgbench scale ${scale}`)
    await pgbenchInit(url, scale)
    const selectOnly = await pgbench(url, 'select-only', clients, seconds)
    const tpcb = await pgbench(url, 'default', clients, seconds)

    bench.log('ceilings: bare Fastify')
    const bare = await startBareServer(url)
    let constant, oneSelect
    try {
      constant = await runLoad(closedLoop(bench, bare.url, [{ method: 'GET', path: '/constant' }]))
      const rows = Array.from({ length: 1000 }, (_, i) => ({ method: 'GET', path: `/row/${i + 1}` }))
      oneSelect = await runLoad(closedLoop(bench, bare.url, rows))
    } finally {
      await bare.stop()
    }
    const ceilings = { constant, oneSelect, selectOnly, tpcb }
    return {
      ceilings,
      section: {
        title: 'Ceilings of this machine',
        columns: ['ceiling', ...LOAD_COLUMNS],
        rows: [
          ['bare Fastify, constant answer', ...loadCells(constant)],
          ['bare Fastify, one primary-key SELECT through pg', ...loadCells(oneSelect)],
          [`pgbench select-only (-S), ${clients} clients`, num(selectOnly.tps), '', `${ms(selectOnly.latencyMs)} (average)`, ''],
          [`pgbench default script (TPC-B-like), ${clients} clients`, num(tpcb.tps), '', `${ms(tpcb.latencyMs)} (average)`, ''],
        ],
        verdicts: [],
        notes: [
          `pgbench transactions per second are in the requests/s column; pgbench reports an average latency, not percentiles.`,
          `pgbench scale ${scale} (${(scale * 100_000).toLocaleString('en-US')} accounts), ${clients} clients on 2 threads, ${seconds} s per script.`,
        ],
      },
    }
  } finally {
    await dropDatabase(bench.pg, bench.db('ceiling'))
  }
}
