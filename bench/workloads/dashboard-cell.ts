import { cpuSeconds, runLoad, startShopfloor } from '../lib/processes.ts'
import { databaseCpu, dropDatabase, recreateDatabase } from '../lib/postgres.ts'
import { LOAD_COLUMNS, loadCells, num, type Section } from '../lib/report.ts'
import type { LoadResult } from '../lib/stats.ts'
import { queueRuns, seededCompany } from './cells-setup.ts'
import { type Bench, bearer } from './context.ts'

/** A counter of the server's /metrics, by its full series name. */
export async function metric(base: string, series: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line ? Number(line.slice(series.length + 1)) : 0
}

interface Pass {
  name: string
  load: LoadResult
  serverMs: number
  postgresMs: number
  computed: number
  shared: number
}

/**
 * Workload 11: the dashboard of a company of 2,000 tasks (quick and full), with 20 active runs
 * (queued through the API), read by one person with 20 connections and with one: requests/s,
 * bytes per answer, and CPU per answer of the server and of the database's backends of this
 * server (not the rest of a shared machine). With 20 connections identical dashboards arriving
 * at the same moment are read once (src/server/http/single-flight.ts): the answers computed
 * and shared are the server's own counters.
 */
export async function dashboardCell(bench: Bench): Promise<Section> {
  const { dashboardTasks, connections } = bench.sizes.cells
  const url = await recreateDatabase(bench.pg, bench.db('dashboard'))
  const server = await startShopfloor({ databaseUrl: url })
  try {
    bench.log(`workload 11: seeding a company of ${dashboardTasks} tasks`)
    const company = await seededCompany(server, url, dashboardTasks, 'DSH')
    await queueRuns(server, company, 25)
    const path = `/api/companies/${company.companyId}/dashboard`
    const answer = await fetch(server.url + path, { headers: bearer(company.apiKey) })
    const bytes = (await answer.arrayBuffer()).byteLength
    const pass = async (name: string, clients: number): Promise<Pass> => {
      bench.log(`workload 11: dashboard, ${name}`)
      const series = (kind: string) => `shopfloor_reads_${kind}_total{route="/dashboard"}`
      const [computed0, shared0] = [await metric(server.url, series('computed')), await metric(server.url, series('shared'))]
      const postgres = await databaseCpu(url)
      const cpu0 = cpuSeconds(server.pid) ?? 0
      const load = await runLoad({
        mode: 'closed', base: server.url, connections: clients, seconds: bench.sizes.seconds, warmup: 0, warmupRequests: 2, okStatus: 200,
        requests: [{ method: 'GET', path, headers: bearer(company.apiKey) }],
      })
      const serverCpu = (cpuSeconds(server.pid) ?? cpu0) - cpu0
      const postgresCpu = await postgres()
      const computed = (await metric(server.url, series('computed'))) - computed0
      const shared = (await metric(server.url, series('shared'))) - shared0
      // Every request of the pass, warm-up ones included, is in the CPU and the counters (a
      // server without them, an older revision, is counted from the load: 2 warm-up requests a connection).
      const answers = computed + shared || load.requests + 2 * clients
      return { name, load, serverMs: (serverCpu * 1000) / answers, postgresMs: (postgresCpu * 1000) / answers, computed, shared }
    }
    const passes = [await pass(`${connections} connections`, connections), await pass('1 connection', 1)]
    return {
      title: `11. Dashboard of a company of ${dashboardTasks.toLocaleString('en-US')} tasks`,
      columns: ['run', ...LOAD_COLUMNS, 'bytes per answer', 'server CPU ms per answer', 'PostgreSQL CPU ms per answer', 'answers computed', 'answers shared'],
      rows: passes.map((p) => [p.name, ...loadCells(p.load), bytes.toLocaleString('en-US'), p.serverMs.toFixed(3), p.postgresMs.toFixed(3), num(p.computed), num(p.shared)]),
      verdicts: [],
      notes: [
        `GET /dashboard (14 days) of a company seeded as workload 4's small one (${dashboardTasks.toLocaleString('en-US')} tasks, 2 agents, five runs and five audit events a task over 90 days), ` +
          'with 25 tasks then assigned through the API so that it shows 20 active runs; one person, an API key.',
        `Each answer: ${bytes.toLocaleString('en-US')} bytes, uncompressed (the load sends no Accept-Encoding): the figures, the 14-day series, the month's forecast, 20 active runs (SPEC.md's Run, without transcript) and the caller's 5 newest open tasks (Task).`,
        'CPU per answer: the server process (/proc utime + stime) and the backends of this database (pg_stat_activity\'s pids, /proc), over the pass, divided by every answer of the pass; ' +
          'answers computed and shared: the server\'s shopfloor_reads_computed_total and shopfloor_reads_shared_total (identical requests arriving at the same moment are read once).',
      ],
    }
  } finally {
    await server.stop()
    await dropDatabase(bench.pg, bench.db('dashboard'))
  }
}
