import { createCompany, hireAgent } from '../lib/api.ts'
import { runLoad } from '../lib/processes.ts'
import { withClient } from '../lib/postgres.ts'
import { LOAD_COLUMNS, loadCells, num, pct, type Section } from '../lib/report.ts'
import { type Bench, type Ceilings, bearer, besideNote, between, closedLoop } from './context.ts'
import type { Fixture } from './fixture.ts'

/** The title of every task this workload makes (and only of those), to count them afterwards. */
const TITLE = 'Benchmark task (workload 2)'

/**
 * Workload 2: POST /tasks with an available assignee, so each request writes a task, a queued
 * assignment run and their two audit events in one transaction. Once in one company (task numbers are
 * allocated under the company row's lock, held only by the short statement that takes them) and
 * once spread over 10 companies. Target: every create writes its queued run and its audit event. The ratio to
 * pgbench's default-script TPS, measured right before and right after the spread run (their
 * mean: this machine's speed drifts by a third over minutes), is a figure, no longer a target:
 * a create must write what SPEC.md requires, pgbench's script five plain statements.
 */
export async function taskCreate(bench: Bench, f: Fixture, databaseUrl: string, ceilings: Ceilings | null): Promise<Section> {
  const headers = bearer(f.account.apiKey)
  const createIn = (companyId: string, agentId: string) => ({
    method: 'POST',
    path: `/api/companies/${companyId}/tasks`,
    headers,
    body: { title: TITLE, description: 'Created under load', priority: 'high', assignee_agent_id: agentId },
  })
  bench.log('workload 2: POST /tasks, one company')
  const one = await runLoad(closedLoop(bench, f.base, [createIn(f.companyId, f.agentId)], 201))

  const spread: ReturnType<typeof createIn>[] = []
  for (let i = 0; i < 10; i++) {
    const company = await createCompany(f.base, f.account.apiKey, `Spread company ${i + 1}`, `SP${i}`)
    const agent = await hireAgent(f.base, f.account.apiKey, company.id, 'Spread agent')
    spread.push(createIn(company.id, agent.id))
  }
  bench.log('workload 2: POST /tasks, 10 companies, between two pgbench runs')
  const { result: many, beside } = await between(
    ceilings && (async () => (await ceilings.tpcbAgain()).tps),
    () => runLoad(closedLoop(bench, f.base, spread, 201)),
  )

  // Every created task must have brought its audit event and its queued run.
  const check = await withClient(databaseUrl, async (c) =>
    (await c.query(
      `WITH made AS (SELECT id FROM tasks WHERE title = $1)
       SELECT (SELECT count(*) FROM made)::int AS tasks,
              (SELECT count(*) FROM runs WHERE trigger = 'assignment' AND task_id IN (SELECT id FROM made))::int AS runs,
              (SELECT count(*) FROM audit_events WHERE entity_type = 'task' AND verb = 'created' AND entity_id IN (SELECT id FROM made))::int AS audits`,
      [TITLE],
    )).rows[0] as { tasks: number; runs: number; audits: number },
  )
  const ratio = (rps: number) => (ceilings ? pct(rps / ceilings.tpcb.tps) : '')
  const manyRatio = beside === null ? null : many.rps / beside.mean
  return {
    title: '2. POST /tasks with an available assignee',
    columns: ['run', ...LOAD_COLUMNS, 'ratio to pgbench default TPS (ceilings)', 'ratio to pgbench default TPS (beside)'],
    rows: [
      ['one company', ...loadCells(one), ratio(one.rps), ''],
      ['spread over 10 companies', ...loadCells(many), ratio(many.rps), manyRatio === null ? '' : pct(manyRatio)],
    ],
    verdicts: [
      {
        target: 'every create writes its queued run and its audit event',
        measured: `${check.tasks} tasks, ${check.runs} runs, ${check.audits} audit events`,
        met: check.tasks > 0 && check.runs === check.tasks && check.audits === check.tasks,
      },
    ],
    notes: [
      `Across companies against pgbench's default script beside it: ${manyRatio === null ? 'no ceiling' : `${pct(manyRatio)} (${num(many.rps)} vs ${num(beside!.mean)})`}. ` +
        'A figure, not a target: a create writes what SPEC.md requires (the task, its queued run, its audit event, the counters), pgbench\'s script five plain statements.',
      ...(beside ? [besideNote("pgbench's default script (the ceilings' settings) right before the spread run", 'TPS', beside, ceilings!.tpcb.tps)] : []),
      `Afterwards the database held ${check.tasks} tasks made by this workload, ${check.runs} assignment runs and ${check.audits} task-created audit events of them ` +
        `(each create brings one of each).`,
    ],
  }
}
