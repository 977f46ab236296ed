import { createCompany } from '../lib/api.ts'
import { cpuDuring, runLoad } from '../lib/processes.ts'
import { withClient } from '../lib/postgres.ts'
import { LOAD_COLUMNS, loadCells, ms, num, type Section } from '../lib/report.ts'
import type { Bench, Ceilings } from './context.ts'
import { bearer } from './context.ts'
import type { Fixture } from './fixture.ts'

/** Tasks in the listed company: more than a page, so every answer is a full 500 rows. */
const TASKS = 600
const PAGE = 500
const CONNECTIONS = 20
const WARMUP_REQUESTS = 2

/**
 * Workload 8: the task list as people open it, `GET /tasks?limit=500`, at 20 connections. The
 * company's 600 tasks are seeded with SQL, shaped like real ones (a description, most with an
 * assignee, some with a due date, in every status), so each answer is a full page of 500
 * rows. Measures requests/s, the bytes of an answer, and the server's CPU per request (from
 * /proc, which the machine's load does not change much). Each task's JSON is written by the
 * database and kept by the server by row version (src/domain/tasks/list.ts), so after the first
 * answer each one reads the page's versions and joins what is kept; its target, twice the
 * requests/s measured before, is judged in the report's analysis, where the runs are recorded.
 */
export async function taskList(bench: Bench, f: Fixture, databaseUrl: string, serverPid: number, ceilings: Ceilings | null): Promise<Section> {
  const company = await createCompany(f.base, f.account.apiKey, 'List company', 'LST')
  bench.log(`workload 8: seeding ${TASKS} tasks`)
  await withClient(databaseUrl, async (c) => {
    await c.query(
      `INSERT INTO agents (company_id, name, adapter) SELECT $1, 'List agent ' || g, 'simulated' FROM generate_series(1, 10) g`,
      [company.id],
    )
    await c.query(
      `WITH a AS (SELECT array_agg(id ORDER BY name) ids FROM agents WHERE company_id = $1)
       INSERT INTO tasks (company_id, number, title, description, status, priority, assignee_agent_id, due_date, created_by_user_id)
       SELECT $1, g, 'Review the billing export for region ' || g,
              'Check the totals against the ledger and note any difference. ' || repeat('More detail. ', g % 8),
              (ARRAY['backlog', 'todo', 'in_progress', 'in_review', 'blocked', 'done', 'cancelled'])[1 + g % 7],
              (ARRAY['urgent', 'high', 'medium', 'low', 'none'])[1 + g % 5],
              CASE WHEN g % 4 = 0 THEN NULL ELSE a.ids[1 + g % 10] END,
              CASE WHEN g % 3 = 0 THEN now() + make_interval(days => g % 30) END,
              $3
         FROM generate_series(1, $2) g, a`,
      [company.id, TASKS, f.account.userId],
    )
    await c.query('UPDATE companies SET last_task_number = $2 WHERE id = $1', [company.id, TASKS])
    await c.query('VACUUM ANALYZE tasks')
  })
  const path = `/api/companies/${company.id}/tasks?limit=${PAGE}`
  const headers = bearer(f.account.apiKey)
  const sample = await fetch(f.base + path, { headers })
  const body = Buffer.from(await sample.arrayBuffer())
  const rows = (JSON.parse(body.toString()) as unknown[]).length

  bench.log(`workload 8: GET /tasks?limit=${PAGE}, ${CONNECTIONS} connections`)
  const { seconds } = bench.sizes
  const { result, cpu } = await cpuDuring(serverPid, () =>
    runLoad({ mode: 'closed', base: f.base, connections: CONNECTIONS, seconds, warmup: 0, warmupRequests: WARMUP_REQUESTS, requests: [{ method: 'GET', path, headers }], okStatus: 200 }),
  )
  const served = result.requests + CONNECTIONS * WARMUP_REQUESTS
  const cpuMsPerRequest = (cpu * 1000) / served
  const mbPerSecond = (result.rps * body.length) / 1e6
  return {
    title: '8. Task list, 500 rows',
    columns: ['run', ...LOAD_COLUMNS, 'bytes per answer', 'server CPU ms per request', 'MB/s answered', 'rows/s'],
    rows: [[
      `${CONNECTIONS} connections, GET /tasks?limit=${PAGE} of ${TASKS} tasks`,
      ...loadCells(result), body.length.toLocaleString('en-US'), ms(cpuMsPerRequest), num(mbPerSecond), num(result.rps * rows),
    ]],
    verdicts: [
      { target: 'every answer a full page', measured: `${rows} rows, ${result.errors} errors`, met: rows === PAGE && result.errors === 0 },
    ],
    notes: [
      `Each answer holds ${rows} tasks in ${body.length.toLocaleString('en-US')} bytes (${Math.round(body.length / rows)} per task), sent uncompressed as the server answers without Accept-Encoding.`,
      `Server CPU: ${cpu.toFixed(1)} CPU-seconds of the \`shopfloor serve\` process (utime + stime from /proc) over ${served.toLocaleString('en-US')} answers, ` +
        `${ms(cpuMsPerRequest)} ms each; the database's own work is in PostgreSQL's processes, not counted here.`,
      ...(ceilings ? [`For scale: the bare one-primary-key-SELECT route answered ${num(ceilings.oneSelect.rps)} requests/s in this run.`] : []),
    ],
  }
}
