// No read of a company grows with its history. Every GET of the API under a company (each path
// of its OpenAPI document, and the lists' filters) is asked of a company the planner's
// statistics have never seen (statistics taken while three small companies existed), once with
// its history and once more after that history doubled (older tasks, runs, audit events and
// comments): the rows it reads must stay the same. The few answers that are the history
// itself (a task's comments, which the spec answers whole; the export; a search, whose matches
// are found among the company's tasks) are named below. Against the code before the lists were read in their indexes' whole order, eight
// paths doubled their reads here (the runs lists, costs, tasks by status).
// test/company/statistics.test.ts counts the writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, privateApp, rowsRead } from '../helpers.ts'
import { type Seeded, seedAgent, seedCompany, seedTask } from '../runs/seed.ts'

// A database of this file's own, so that the statistics know exactly the companies made here;
// the app on one connection, so that the statements' counters are this connection's to read.
let t: Awaited<ReturnType<typeof privateApp>>
beforeAll(async () => {
  t = await privateApp({ debug: true, webhooksAllowPrivate: true }, { connections: 1 })
})
afterAll(async () => {
  await t?.close()
})

/**
 * `count` tasks (a third done, half of them linked to `goal` when given), four runs a task
 * spread over the agents and 400 days, an audit event and a comment a task, all `daysBack` days
 * older than now and numbered from `first`.
 */
async function history(s: Seeded, agents: string[], commented: string, first: number, count: number, daysBack: number, goal: string | null = null) {
  for (let from = first; from < first + count; from += 1000) {
    const to = Math.min(first + count - 1, from + 999)
    await t.ctx.db.query(
      `INSERT INTO tasks (company_id, number, title, status, created_by_user_id, assignee_agent_id, goal_id, created_at, updated_at)
       SELECT $1, n, 'Task ' || n, CASE WHEN n % 3 = 0 THEN 'done' ELSE 'todo' END, $4, ($5::uuid[])[1 + n % 20], CASE WHEN n % 2 = 0 THEN $7::uuid END, c, c
         FROM generate_series($2::int, $3::int) n, LATERAL (SELECT now() - make_interval(days => $6 + n % 400) AS c) at`,
      [s.companyId, from, to, s.user.id, agents, daysBack, goal],
    )
    await t.ctx.db.query(
      `INSERT INTO runs (company_id, agent_id, task_id, status, trigger, created_at, started_at, ended_at, cost_cents)
       SELECT $1, ($2::uuid[])[1 + n % 20], $5, 'succeeded', 'manual', c, c, c, 3 FROM generate_series($3::int * 4, $4::int * 4 + 3) n,
              LATERAL (SELECT now() - make_interval(days => $6 + (n / 20) % 400, secs => n) AS c) at`,
      [s.companyId, agents, from, to, commented, daysBack],
    )
    await t.ctx.db.query(
      `INSERT INTO audit_events (company_id, actor_type, actor_name, verb, entity_type, entity_id, label, created_at)
       SELECT $1, 'system', 'Seed', 'updated', 'task', $4, 'Seeded', now() - make_interval(days => $5, secs => n)
         FROM generate_series($2::int, $3::int) n`,
      [s.companyId, from, to, commented, daysBack],
    )
    await t.ctx.db.query(
      `INSERT INTO task_comments (company_id, task_id, body, author_user_id, created_at)
       SELECT $1, $4, 'Comment ' || n, $5, now() - make_interval(days => $6, secs => n) FROM generate_series($2::int, $3::int) n`,
      [s.companyId, from, to, commented, s.user.id, daysBack],
    )
  }
  await t.ctx.db.query('UPDATE companies SET last_task_number = greatest(last_task_number, $2) WHERE id = $1', [s.companyId, first + count - 1])
}

/** Answers that are the company's history itself, and why. */
const WHOLE: Record<string, string> = {
  '/tasks/{task_ref}/comments': 'a task\'s comments, all of them (SPEC: "array, all rows")',
  '/export': 'the whole company',
  '/tasks?q=': 'a search: its matches are found among the company\'s tasks',
}
describe('a company unknown to the statistics, its history doubled', () => {
  let big: Seeded
  let paths: string[]
  beforeAll(async () => {
    for (let i = 0; i < 3; i++) {
      const small = await seedCompany(t)
      const agents = await Promise.all(Array.from({ length: 20 }, (_, n) => seedAgent(t, small, { name: `Agent ${n}` })))
      await history(small, agents, await seedTask(t, small), 10, 200, 0)
    }
    await t.ctx.db.query('ANALYZE')
    big = await seedCompany(t, { prefix: 'BIG' })
  }, 120_000)

  it('reads as many rows for every GET after its history doubled', async () => {
    const token = big.user.token
    const agents: string[] = []
    for (let n = 0; n < 20; n++) agents.push(await seedAgent(t, big, { name: `Agent ${n}` }))
    const goal = (await call(t.app, 'POST', `${big.base}/goals`, { token, body: { title: 'Ship it' } })).body
    const project = (await call(t.app, 'POST', `${big.base}/projects`, { token, body: { name: 'Launch' } })).body
    const task = await seedTask(t, big, { assignee: agents[0], goalId: goal.id, projectId: project.id })
    const routine = (await call(t.app, 'POST', `${big.base}/routines`, { token, body: { title: 'Daily', cron: '0 9 * * *', agent_id: agents[1] } })).body
    const created = await call(t.app, 'POST', `${big.base}/webhooks`, { token, body: { url: 'http://127.0.0.1:9/hook', events: ['task.created'] } })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const webhook = created.body
    await seedAgent(t, big, { name: 'Waiting', status: 'pending_approval' })
    const approval = await t.ctx.db.one<{ id: string }>('SELECT id FROM approvals WHERE company_id = $1', [big.companyId])
    await history(big, agents, task, 10, 5000, 0, goal.id)
    const run = await t.ctx.db.one<{ id: string }>('SELECT id FROM runs WHERE company_id = $1 ORDER BY created_at DESC LIMIT 1', [big.companyId])
    // A run's patch is written by its runner after a repository task; here straight into its table.
    await t.ctx.db.query('INSERT INTO run_patches (run_id, company_id, patch) VALUES ($1, $2, $3)', [run!.id, big.companyId, 'diff --git a/x b/x\n'])
    const doc = (await call(t.app, 'POST', `${big.base}/documents`, { token, body: { title: 'Handbook', body: 'How we work.' } })).body
    const skill = (await call(t.app, 'POST', `${big.base}/skills`, { token, body: { name: 'review', description: 'Reviews a change', body: 'Read the diff.' } })).body

    const ids: Record<string, string | undefined> = {
      company_id: big.companyId, agent_id: agents[0], task_ref: task, goal_id: goal.id, project_id: project.id,
      run_id: run!.id, routine_id: routine.id, webhook_id: webhook.id, approval_id: approval!.id, document_id: doc.id, skill_id: skill.id,
    }
    const spec = (await call(t.app, 'GET', '/openapi.json', {})).body as { paths: Record<string, { get?: unknown }> }
    const prefix = '/api/companies/{company_id}'
    paths = [
      ...Object.entries(spec.paths)
        .filter(([path, ops]) => ops.get && path.startsWith(prefix) && !path.endsWith('/events'))
        .map(([path]) => path.slice(prefix.length)),
      '/tasks?status=todo', '/tasks?status=in_review', '/tasks?status=in_review&status=blocked', '/tasks?created_by=me',
      '/tasks?assignee_agent_id={agent_id}&limit=100', '/tasks?project_id={project_id}', '/tasks?goal_id={goal_id}', '/tasks?parent_id={task_ref}',
      '/tasks?q=billing', '/runs?agent_id={agent_id}', '/runs?task_id={task_ref}', '/runs?status=failed', '/runs?status=succeeded&status=failed',
      '/activity?entity_type=task&entity_id={task_ref}', '/dashboard?days=30', '/costs?month=2026-01', '/tasks/BIG-100',
    ]
    const url = (path: string) => {
      const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
        if (!ids[name]) throw new Error(`${path}: no value for {${name}}; give the test one`)
        return ids[name]!
      })
      return `${big.base}${filled}`
    }
    const readAll = async () => {
      const read: Record<string, number> = {}
      for (const path of paths) {
        const before = await rowsRead(t.ctx.db)
        const answer = await call(t.app, 'GET', url(path), { token })
        expect(answer.status, path).toBe(200)
        read[path] = (await rowsRead(t.ctx.db)) - before
      }
      return read
    }
    const once = await readAll()
    await history(big, agents, task, 10_000, 5000, 400, goal.id)
    const twice = await readAll()

    const grown = paths
      .filter((path) => !Object.keys(WHOLE).some((whole) => path === whole || path.startsWith(whole)))
      .filter((path) => twice[path]! > once[path]! * 1.5 + 30)
      .map((path) => `${path}: ${once[path]} -> ${twice[path]} rows`)
    expect(grown).toEqual([])
  }, 180_000)
})
