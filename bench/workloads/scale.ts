import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { Scenario } from '../load/generator.ts'
import { account, createCompany } from '../lib/api.ts'
import { type Child, ROOT, runLoads, startShopfloor } from '../lib/processes.ts'
import { databaseUrl, recreateDatabase, withClient } from '../lib/postgres.ts'
import { ms, type Section } from '../lib/report.ts'
import type { LoadResult } from '../lib/stats.ts'
import { type Bench, bearer, type SharedServer } from './context.ts'
import { seedCompanies } from './scale-seed.ts'

const P99_TARGET_MS = 50
const SIZE_FACTOR = 2
/**
 * Each endpoint is measured on both companies at once, their requests alternating on each
 * connection, and warmed for this share of its measured seconds first (after 3 unmeasured
 * requests). Measured one company after the other, large first, with 3 warm-up requests, the
 * large company's p99 carried the warm-up of both: read one request at a time, the first few
 * hundred answers of an endpoint came in 2-5 ms against under 1 ms after (the server's code
 * for that answer and the database's plans and pages warming up), in whichever company came
 * first; and at a p99 of 1-3 ms, a pause of the machine in one company's window and not the
 * other's still moved the ratio past 2x now and then. Alternating, both see the same moments.
 */
const WARMUP_SHARE = 0.5

interface Seeded {
  apiKey: string
  large: string
  small: string
  /** The company where the caller created `sizes.scale.mine` open tasks. */
  mine: string
}

/**
 * What the seeded database was made from: the seed and the sizes. A database with the same
 * fingerprint is reused (seeding a million runs takes minutes on two cores); `--reseed` forces
 * a new one. Migrations added since are applied to it when the server starts, as in production.
 */
function fingerprint(bench: Bench): string {
  const hash = createHash('sha256')
  hash.update(fs.readFileSync(path.join(ROOT, 'bench', 'workloads', 'scale-seed.ts')))
  hash.update(JSON.stringify([bench.sizes.scale.large, bench.sizes.scale.small, bench.sizes.scale.mine]))
  return hash.digest('hex')
}

async function existing(bench: Bench, print: string): Promise<Seeded | null> {
  try {
    return await withClient(databaseUrl(bench.pg, bench.db('scale')), async (c) => {
      const row = (await c.query('SELECT api_key, large, small, mine FROM bench_seed WHERE fingerprint = $1', [print])).rows[0]
      return row ? { apiKey: row.api_key, large: row.large, small: row.small, mine: row.mine } : null
    })
  } catch {
    return null // no such database, or not finished seeding
  }
}

async function seed(bench: Bench, server: Child, url: string, print: string): Promise<Seeded> {
  const who = await account(server.url, 'scale')
  const large = await createCompany(server.url, who.apiKey, 'Large company', 'BIG')
  const small = await createCompany(server.url, who.apiKey, 'Small company', 'SML')
  const mine = await createCompany(server.url, who.apiKey, 'Filed by me', 'MINE')
  const { large: largeSize, small: smallSize } = bench.sizes.scale
  await withClient(url, async (c) => {
    bench.log(`workload 4: seeding ${largeSize.tasks} tasks, ${largeSize.auditEvents} audit events, ${largeSize.runs} runs`)
    const started = Date.now()
    await seedCompanies(
      c,
      [
        { companyId: large.id, userId: who.userId, size: largeSize },
        { companyId: small.id, userId: who.userId, size: smallSize },
      ],
      { companyId: mine.id, userId: who.userId, tasks: bench.sizes.scale.mine },
    )
    bench.log(`workload 4: seeded in ${Math.round((Date.now() - started) / 1000)} s`)
    await c.query('CREATE TABLE bench_seed (fingerprint text PRIMARY KEY, api_key text NOT NULL, large uuid NOT NULL, small uuid NOT NULL, mine uuid NOT NULL)')
    await c.query('INSERT INTO bench_seed VALUES ($1, $2, $3, $4, $5)', [print, who.apiKey, large.id, small.id, mine.id])
  })
  return { apiKey: who.apiKey, large: large.id, small: small.id, mine: mine.id }
}

interface Endpoint {
  name: string
  path: (companyId: string, probe: Probe) => string
}

/** Ids and cursors an endpoint needs, read from the company's seeded rows. */
interface Probe {
  agentId: string
  /** The first of the company's goals, each served by a tenth of its tasks. */
  goalId: string
  page200Before: string
  /** Runs created this UTC month: what the costs and month-to-date spend add up. */
  monthRuns: number
  /** Open tasks assigned to the company's agents: what their open_tasks add up to. */
  openAssigned: number
}

const ENDPOINTS: Endpoint[] = [
  { name: 'task list, 500 rows, no filter', path: (c) => `/api/companies/${c}/tasks?limit=500` },
  { name: 'task list, status todo + in_progress', path: (c) => `/api/companies/${c}/tasks?status=todo&status=in_progress&limit=500` },
  { name: 'task list, one assignee', path: (c, p) => `/api/companies/${c}/tasks?assignee_agent_id=${p.agentId}&limit=500` },
  { name: 'task list, search q=billing', path: (c) => `/api/companies/${c}/tasks?q=billing&limit=500` },
  { name: 'activity page 1', path: (c) => `/api/companies/${c}/activity` },
  { name: 'activity page 200', path: (c, p) => `/api/companies/${c}/activity?before=${encodeURIComponent(p.page200Before)}` },
  { name: 'dashboard, 30 days', path: (c) => `/api/companies/${c}/dashboard?days=30` },
  { name: 'costs, this month', path: (c) => `/api/companies/${c}/costs` },
  { name: 'inbox', path: (c) => `/api/companies/${c}/inbox` },
  { name: 'goals list, with task counts', path: (c) => `/api/companies/${c}/goals` },
  { name: 'task list, one goal', path: (c, p) => `/api/companies/${c}/tasks?goal_id=${p.goalId}&limit=500` },
]

async function probe(url: string, companyId: string): Promise<Probe> {
  return withClient(url, async (c) => {
    const agent = (await c.query('SELECT id FROM agents WHERE company_id = $1 ORDER BY created_at, id LIMIT 1', [companyId])).rows[0]
    const goal = (await c.query('SELECT id FROM goals WHERE company_id = $1 ORDER BY title LIMIT 1', [companyId])).rows[0]
    // Page 200 of 50 starts after the 9,950th newest event: its created_at is the cursor.
    const cursor = (await c.query(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at
         FROM audit_events WHERE company_id = $1 ORDER BY created_at DESC OFFSET 9949 LIMIT 1`,
      [companyId],
    )).rows[0]
    const month = (await c.query(
      `SELECT count(*)::int AS n FROM runs WHERE company_id = $1 AND created_at >= date_trunc('month', now())`,
      [companyId],
    )).rows[0]
    const open = (await c.query(
      `SELECT count(*)::int AS n FROM tasks WHERE company_id = $1 AND assignee_agent_id IS NOT NULL AND status NOT IN ('done', 'cancelled')`,
      [companyId],
    )).rows[0]
    return { agentId: agent.id, goalId: goal.id, page200Before: cursor?.at ?? new Date().toISOString(), monthRuns: month.n, openAssigned: open.n }
  })
}

/**
 * Workload 4: reads of a company with 100,000 tasks, 1,000,000 audit events and 1,000,000
 * runs (seeded with SQL), against a company with a hundredth of that history. Latency is the
 * subject, so one connection sends one request at a time (no queueing in the figures).
 * Targets: p99 under 50 ms for each, and within a factor of 2 of the small company.
 * On a server and database of its own, or seeded into `shared` ones (smoke mode,
 * Sizes.oneServer), which must hold no tasks yet: the seed counts every task of the database.
 */
export async function scale(bench: Bench, reseed: boolean, shared?: SharedServer): Promise<Section> {
  const print = fingerprint(bench)
  let seeded = reseed || shared ? null : await existing(bench, print)
  const reused = seeded !== null
  const url = shared?.url ?? (reused ? databaseUrl(bench.pg, bench.db('scale')) : await recreateDatabase(bench.pg, bench.db('scale')))
  const server = shared?.server ?? (await startShopfloor({ databaseUrl: url }))
  try {
    seeded ??= await seed(bench, server, url, print)
    const headers = bearer(seeded.apiKey)
    const { seconds, connections } = bench.sizes.scale
    // Twice the seconds: each company gets half the requests.
    const both = (largePath: string, smallPath: string, clients = connections): Scenario => ({
      mode: 'closed', base: server.url, connections: clients, seconds: 2 * seconds, warmup: seconds * WARMUP_SHARE, warmupRequests: 3, okStatus: 200,
      requests: [{ method: 'GET', path: largePath, headers, label: 'large' }, { method: 'GET', path: smallPath, headers, label: 'small' }],
    })
    const large = await probe(url, seeded.large)
    const small = await probe(url, seeded.small)
    bench.log(`workload 4: ${ENDPOINTS.length} endpoints, large and small company`)
    // Each endpoint on the large and the small company, in one generator process. Then the
    // dashboard and the agents list of the company with the many open tasks against the small
    // company's, the dashboard with one reader and with `readers` at once.
    const dashboard = (c: string) => `/api/companies/${c}/dashboard?days=30`
    const { readers } = bench.sizes.scale
    const pairs: { name: string; scenario: Scenario }[] = [
      ...ENDPOINTS.map((e) => ({ name: e.name, scenario: both(e.path(seeded!.large, large), e.path(seeded!.small, small)) })),
      { name: `dashboard, ${mineCount(bench)} open tasks of the caller`, scenario: both(dashboard(seeded.mine), dashboard(seeded.small)) },
      {
        name: `agents list, one agent with ${mineCount(bench)} open tasks`,
        scenario: both(`/api/companies/${seeded.mine}/agents`, `/api/companies/${seeded.small}/agents`),
      },
      {
        name: `dashboard, ${mineCount(bench)} open tasks of the caller, ${readers} readers`,
        scenario: both(dashboard(seeded.mine), dashboard(seeded.small), readers),
      },
    ]
    const results = await runLoads(pairs.map((p) => p.scenario))
    const rows: string[][] = []
    const verdicts: Section['verdicts'] = []
    for (const [i, e] of pairs.entries()) {
      const { large: big, small: base } = results[i].byLabel!
      const answered = big.errors === 0 && base.errors === 0
      const factor = big.p99 / base.p99
      rows.push([e.name, ms(big.p50), ms(big.p99), ms(base.p50), ms(base.p99), answered ? `${factor.toFixed(2)}x` : statusText(big, base)])
      verdicts.push({
        target: `${e.name}: p99 < ${P99_TARGET_MS} ms and <= ${SIZE_FACTOR}x the small company`,
        measured: answered ? `${ms(big.p99)} ms, ${factor.toFixed(2)}x` : statusText(big, base),
        // An endpoint that is not there (404) is not measured; one that fails is a miss.
        met: answered ? big.p99 < P99_TARGET_MS && factor <= SIZE_FACTOR : notThere(big, base) ? null : false,
      })
    }
    const { large: L, small: S } = bench.sizes.scale
    return {
      title: '4. Scale: reads of a large company',
      columns: ['endpoint', 'large p50 ms', 'large p99 ms', 'small p50 ms', 'small p99 ms', 'p99 large / small'],
      rows,
      verdicts,
      notes: [
        `Large company: ${L.tasks.toLocaleString('en-US')} tasks, ${L.auditEvents.toLocaleString('en-US')} audit events, ${L.runs.toLocaleString('en-US')} runs, ${L.agents} agents; ` +
          `small company: ${S.tasks.toLocaleString('en-US')} tasks, ${S.auditEvents.toLocaleString('en-US')} audit events, ${S.runs.toLocaleString('en-US')} runs, ${S.agents} agents, so that every list answers as many rows as in the large one and the comparison shows what size alone costs.`,
        `Runs created this month (what costs and month-to-date spend add up): ${large.monthRuns.toLocaleString('en-US')} in the large company, ${small.monthRuns.toLocaleString('en-US')} in the small one.`,
        `Both live in one database, seeded with generate_series (bench/workloads/scale-seed.ts) over 90 days of history${reused ? '; this run reused the database seeded by an earlier run from the same seed and sizes' : ''}.`,
        `A third company holds ${mineCount(bench)} open tasks created by the caller, all assigned to its one agent, and nothing else: the dashboard's "for you" (how many, how many blocked, the 5 newest) is read there and compared with the small company's dashboard, with one reader and with ${readers} at once (the p99 then includes queueing on two cores, in both companies alike), and its agents list (each agent's open_tasks) with the small company's (${S.agents} agents with ${small.openAssigned.toLocaleString('en-US')} open tasks between them).`,
        `${connections} connection, the two companies' requests alternating on it, ${2 * seconds} s per endpoint (about ${seconds} s of requests each) after 3 unmeasured requests and ${seconds * WARMUP_SHARE} s of warm-up (a cold cache is not the subject; measured one after the other, the company measured first carried the warm-up of both, and a pause of the machine in one window moved a 1-3 ms p99).`,
      ],
    }
  } finally {
    if (!shared) await server.stop()
  }
}

function mineCount(bench: Bench): string {
  return bench.sizes.scale.mine.toLocaleString('en-US')
}

function notThere(a: LoadResult, b: LoadResult): boolean {
  return Boolean(a.statuses['404'] || b.statuses['404'])
}

function statusText(a: LoadResult, b: LoadResult): string {
  const codes = new Set([...Object.keys(a.statuses), ...Object.keys(b.statuses)].filter((s) => s !== '200'))
  return `answered ${[...codes].join(', ')}`
}
