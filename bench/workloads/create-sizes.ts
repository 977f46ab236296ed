import { cpuSeconds, runLoad, startShopfloor } from '../lib/processes.ts'
import { databaseCpu, dropDatabase, recreateDatabase, waitsDuring } from '../lib/postgres.ts'
import { LOAD_COLUMNS, loadCells, pct, type Section } from '../lib/report.ts'
import { seededCompany } from './cells-setup.ts'
import { type Bench, bearer } from './context.ts'

/** What the backends waited on, in a few words: the kinds that matter to a create. */
function waitShares(shares: Record<string, number>): string {
  const sum = (test: (kind: string) => boolean) => Object.entries(shares).filter(([k]) => test(k)).reduce((a, [, v]) => a + v, 0)
  const lock = sum((k) => k.startsWith('Lock:'))
  const wal = sum((k) => k === 'IO:WALSync' || k === 'IO:WALWrite' || k.startsWith('LWLock:WAL'))
  const cpu = sum((k) => k === 'CPU')
  return `row locks ${pct(lock)}, WAL flush ${pct(wal)}, on CPU ${pct(cpu)}, other ${pct(Math.max(0, 1 - lock - wal - cpu))}`
}

/**
 * Workload 12: POST /tasks with an available assignee in a company of 2,000 tasks and in one
 * of 20,000 (quick and full), each in a database of its own seeded as workload 4's small
 * company and analysed, 20 connections. Per create: the server's CPU and the CPU of this
 * database's backends; and what the backends were doing, sampled from pg_stat_activity every
 * few milliseconds (waiting on a row lock - the company row, which every create of a company
 * takes for its task number, or a counter row two creates share -, flushing WAL at commit, or on
 * a CPU).
 */
export async function createSizes(bench: Bench): Promise<Section> {
  const { createTasks, connections } = bench.sizes.cells
  const rows: string[][] = []
  const notes: string[] = []
  for (const tasks of createTasks) {
    const name = `creates_${tasks}`
    const url = await recreateDatabase(bench.pg, bench.db(name))
    const server = await startShopfloor({ databaseUrl: url })
    try {
      bench.log(`workload 12: seeding a company of ${tasks} tasks`)
      const company = await seededCompany(server, url, tasks, 'CRS')
      bench.log(`workload 12: creates in the company of ${tasks} tasks`)
      const postgres = await databaseCpu(url)
      const cpu0 = cpuSeconds(server.pid) ?? 0
      const { result: load, shares } = await waitsDuring(url, () => runLoad({
        mode: 'closed', base: server.url, connections, seconds: bench.sizes.seconds, warmup: 0, warmupRequests: 1, okStatus: 201,
        requests: [{
          method: 'POST', path: `/api/companies/${company.companyId}/tasks`, headers: bearer(company.apiKey),
          body: { title: 'Benchmark create', description: 'Created under load', priority: 'high', assignee_agent_id: company.agentId },
        }],
      }))
      const answers = load.requests + connections // the warm-up creates count in the CPU
      const serverMs = (((cpuSeconds(server.pid) ?? cpu0) - cpu0) * 1000) / answers
      const postgresMs = ((await postgres()) * 1000) / answers
      rows.push([`company of ${tasks.toLocaleString('en-US')} tasks`, ...loadCells(load), serverMs.toFixed(3), postgresMs.toFixed(3), waitShares(shares)])
      notes.push(`Company of ${tasks.toLocaleString('en-US')} tasks, busy backends' states: ${Object.entries(shares).slice(0, 6).map(([k, v]) => `${k} ${pct(v)}`).join(', ')}.`)
    } finally {
      await server.stop()
      await dropDatabase(bench.pg, bench.db(name))
    }
  }
  return {
    title: '12. Creates with an assignee, by company size',
    columns: ['company', ...LOAD_COLUMNS, 'server CPU ms per create', 'PostgreSQL CPU ms per create', 'what busy backends were doing'],
    rows,
    verdicts: [],
    notes: [
      `${connections} connections, POST /tasks with an available assignee (each create writes the task, its queued run, two audit events and the counters), ` +
        'in a company seeded as workload 4\'s small one (2 agents, five runs and five audit events a task, VACUUM ANALYZE), each size in a database and server of its own.',
      'CPU per create: the server process and this database\'s backends (/proc), over the run and its warm-up creates. Backends\' states: pg_stat_activity sampled every 5 ms, active backends only.',
      ...notes,
    ],
  }
}
