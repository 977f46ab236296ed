// The dashboard's task counts (task_counts), its "for you" (task_creator_counts), each agent's
// open_tasks (task_assignee_counts) and the daily series of tasks created and completed
// (task_days) are kept by a trigger on every task write (tasks_counters_follow()).
// Whatever the writes, they must equal a count of the tasks themselves.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { migrate, readMigrations } from '../../src/server/db/migrate.ts'
import { createCompany, createTask, hireAgent } from '../fixtures.ts'
import { call, createUser, emptyDb, type TestApp, testApp } from '../helpers.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

async function countsFromTasks(companyId: string) {
  return t.ctx.db.many<{ status: string; priority: string; n: number }>(
    `SELECT status, priority, count(*)::int AS n FROM tasks WHERE company_id = $1
      GROUP BY status, priority ORDER BY status, priority`,
    [companyId],
  )
}

async function countsKept(companyId: string) {
  return t.ctx.db.many<{ status: string; priority: string; n: number }>(
    `SELECT status, priority, sum(n)::int AS n FROM task_counts WHERE company_id = $1
      GROUP BY status, priority HAVING sum(n) <> 0 ORDER BY status, priority`,
    [companyId],
  )
}

async function daysFromTasks(companyId: string) {
  return t.ctx.db.many<{ day: string; created: number; completed: number }>(
    `SELECT day::text, sum(created)::int AS created, sum(completed)::int AS completed FROM (
       SELECT (created_at AT TIME ZONE 'UTC')::date AS day, 1 AS created, 0 AS completed FROM tasks WHERE company_id = $1
       UNION ALL
       SELECT (completed_at AT TIME ZONE 'UTC')::date, 0, 1 FROM tasks WHERE company_id = $1 AND completed_at IS NOT NULL
     ) x GROUP BY day ORDER BY day`,
    [companyId],
  )
}

async function daysKept(companyId: string) {
  return t.ctx.db.many<{ day: string; created: number; completed: number }>(
    `SELECT day::text, sum(created)::int AS created, sum(completed)::int AS completed FROM task_days
      WHERE company_id = $1 GROUP BY day HAVING sum(created) <> 0 OR sum(completed) <> 0 ORDER BY day`,
    [companyId],
  )
}

it('stay equal to the tasks through creates,  moves, priority changes and deletes, and feed the dashboard', async () => {
  const user = await createUser(t.ctx)
  const company = await createCompany(t.app, user.token)
  const other = await createCompany(t.app, user.token)
  const base = `/api/companies/${company.id}`
  const a = await createTask(t.app, user.token, company.id, { priority: 'high' })
  const b = await createTask(t.app, user.token, company.id, { status: 'blocked' })
  const c = await createTask(t.app, user.token, company.id)
  await createTask(t.app, user.token, other.id, { status: 'done' })

  await call(t.app, 'PATCH', `${base}/tasks/${a.key}`, { token: user.token, body: { status: 'in_progress' } })
  await call(t.app, 'PATCH', `${base}/tasks/${b.key}`, { token: user.token, body: { priority: 'urgent', status: 'done' } })
  await call(t.app, 'PATCH', `${base}/tasks/${c.key}`, { token: user.token, body: { title: 'Only the title' } })
  expect((await call(t.app, 'DELETE', `${base}/tasks/${c.key}`, { token: user.token })).status).toBe(204)
  // A failed write leaves the counts alone.
  const bad = await call(t.app, 'POST', `${base}/tasks`, { token: user.token, body: { title: 'x', parent_id: other.id } })
  expect(bad.status).toBe(404)

  const kept = await countsKept(company.id)
  expect(kept).toEqual(await countsFromTasks(company.id))
  expect(kept).toEqual([
    { status: 'done', priority: 'urgent', n: 1 },
    { status: 'in_progress', priority: 'high', n: 1 },
  ])
  expect(await countsKept(other.id)).toEqual([{ status: 'done', priority: 'medium', n: 1 }])

  const dashboard = await call(t.app, 'GET', `${base}/dashboard`, { token: user.token })
  expect(dashboard.status).toBe(200)
  expect(dashboard.body.tasks_by_status).toMatchObject({ done: 1, in_progress: 1, todo: 0, blocked: 0 })
  expect(dashboard.body.tasks_by_priority).toMatchObject({ urgent: 1, high: 1, medium: 0 })
  expect(dashboard.body.tasks_in_progress).toBe(1)
  expect(dashboard.body.tasks_blocked).toBe(0)
})

it('stay equal to the tasks when many connections move a company\'s tasks at once', async () => {
  const user = await createUser(t.ctx)
  const company = await createCompany(t.app, user.token)
  const base = `/api/companies/${company.id}`
  const tasks = await Promise.all(Array.from({ length: 12 }, () => createTask(t.app, user.token, company.id)))
  const moves = ['in_progress', 'blocked', 'done', 'todo']
  for (const status of moves) {
    await Promise.all(tasks.map((task, i) =>
      call(t.app, 'PATCH', `${base}/tasks/${task.key}`, { token: user.token, body: { status: i % 2 ? status : 'in_review' } })))
  }
  expect(await countsKept(company.id)).toEqual(await countsFromTasks(company.id))
  const dashboard = await call(t.app, 'GET', `${base}/dashboard`, { token: user.token })
  expect(dashboard.body.tasks_by_status).toMatchObject({ todo: 6, in_review: 6 })
})

it('count tasks created and completed per day through completions, reopening, back-dating and deletes', async () => {
  const user = await createUser(t.ctx)
  const company = await createCompany(t.app, user.token)
  const base = `/api/companies/${company.id}`
  const [a, b, c, d] = await Promise.all(Array.from({ length: 4 }, () => createTask(t.app, user.token, company.id)))
  const done = await createTask(t.app, user.token, company.id, { status: 'done' })
  const move = (key: string, status: string) => call(t.app, 'PATCH', `${base}/tasks/${key}`, { token: user.token, body: { status } })

  expect((await move(a.key, 'done')).status).toBe(200)
  expect((await move(b.key, 'done')).status).toBe(200)
  expect((await move(b.key, 'todo')).status).toBe(200) // reopened: no longer completed
  // Back-dated by hand, as an import would: the task leaves today for its old days.
  await t.ctx.db.query(
    `UPDATE tasks SET created_at = created_at - interval '3 days', completed_at = now() - interval '2 days' WHERE id = $1`,
    [c.id],
  )
  expect((await call(t.app, 'DELETE', `${base}/tasks/${d.key}`, { token: user.token })).status).toBe(204)
  expect((await call(t.app, 'DELETE', `${base}/tasks/${done.key}`, { token: user.token })).status).toBe(204)

  const kept = await daysKept(company.id)
  expect(kept).toEqual(await daysFromTasks(company.id))
  // Today: a, b and c's creation gone to 3 days ago, d and done deleted; a completed.
  expect(kept.at(-1)).toMatchObject({ created: 2, completed: 1 })
  expect(kept).toHaveLength(3)
})

async function creatorCountsFromTasks(companyId: string) {
  return t.ctx.db.many<{ user_id: string; status: string; n: number }>(
    `SELECT created_by_user_id AS user_id, status, count(*)::int AS n FROM tasks
      WHERE company_id = $1 AND created_by_user_id IS NOT NULL
      GROUP BY 1, 2 ORDER BY 1, 2`,
    [companyId],
  )
}

async function creatorCountsKept(companyId: string) {
  return t.ctx.db.many<{ user_id: string; status: string; n: number }>(
    `SELECT user_id, status, sum(n)::int AS n FROM task_creator_counts WHERE company_id = $1
      GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2`,
    [companyId],
  )
}

it('count each person\'s tasks by status for the dashboard\'s "for you", through moves from many connections, a change of creator and deletes', async () => {
  const user = await createUser(t.ctx)
  const other = await createUser(t.ctx)
  const company = await createCompany(t.app, user.token)
  const base = `/api/companies/${company.id}`
  const tasks = await Promise.all(Array.from({ length: 9 }, () => createTask(t.app, user.token, company.id)))
  const move = (key: string, status: string) => call(t.app, 'PATCH', `${base}/tasks/${key}`, { token: user.token, body: { status } })
  await Promise.all(tasks.map((task, i) => move(task.key, ['blocked', 'done', 'in_progress'][i % 3]!)))
  // tasks 0, 3, 6 blocked; 1, 4, 7 done; 2, 5, 8 in progress. Task 8 changes hands, task 6 is deleted.
  await t.ctx.db.query('UPDATE tasks SET created_by_user_id = $2 WHERE id = $1', [tasks[8]!.id, other.id])
  expect((await call(t.app, 'DELETE', `${base}/tasks/${tasks[6]!.key}`, { token: user.token })).status).toBe(204)
  // The most recently updated open task comes first.
  await call(t.app, 'PATCH', `${base}/tasks/${tasks[0]!.key}`, { token: user.token, body: { title: 'Touched last' } })

  const kept = await creatorCountsKept(company.id)
  expect(kept).toEqual(await creatorCountsFromTasks(company.id))
  expect(kept.filter((row) => row.user_id === user.id)).toEqual([
    { user_id: user.id, status: 'blocked', n: 2 },
    { user_id: user.id, status: 'done', n: 3 },
    { user_id: user.id, status: 'in_progress', n: 2 },
  ])
  expect(kept.filter((row) => row.user_id === other.id)).toEqual([{ user_id: other.id, status: 'in_progress', n: 1 }])

  const dashboard = await call(t.app, 'GET', `${base}/dashboard`, { token: user.token })
  expect(dashboard.status).toBe(200)
  expect(dashboard.body.for_you.open_tasks).toBe(4)
  expect(dashboard.body.for_you.blocked_tasks).toBe(2)
  const recent = dashboard.body.for_you.recent as { key: string; updated_at: string }[]
  expect(recent.map((task) => task.key).sort()).toEqual([tasks[0], tasks[2], tasks[3], tasks[5]].map((task) => task!.key).sort())
  expect(recent[0]!.key).toBe(tasks[0]!.key)
  expect(recent.map((task) => task.updated_at)).toEqual(recent.map((task) => task.updated_at).sort().reverse())
})

async function assigneeCountsFromTasks(companyId: string) {
  return t.ctx.db.many<{ agent_id: string; n: number }>(
    `SELECT assignee_agent_id AS agent_id, count(*)::int AS n FROM tasks
      WHERE company_id = $1 AND assignee_agent_id IS NOT NULL AND status NOT IN ('done', 'cancelled')
      GROUP BY 1 ORDER BY 1`,
    [companyId],
  )
}

async function assigneeCountsKept(companyId: string) {
  return t.ctx.db.many<{ agent_id: string; n: number }>(
    `SELECT agent_id, sum(n)::int AS n FROM task_assignee_counts WHERE company_id = $1
      GROUP BY 1 HAVING sum(n) <> 0 ORDER BY 1`,
    [companyId],
  )
}

it('count each agent\'s open tasks for its open_tasks, through assignment, reassignment, completion, reopening, deletes and moves from many connections', async () => {
  const user = await createUser(t.ctx)
  const company = await createCompany(t.app, user.token)
  const base = `/api/companies/${company.id}`
  const [ann, bob] = [await hireAgent(t.app, user.token, company.id, { name: 'Ann' }), await hireAgent(t.app, user.token, company.id, { name: 'Bob' })]
  const tasks = await Promise.all(Array.from({ length: 10 }, (_, i) =>
    createTask(t.app, user.token, company.id, { assignee_agent_id: i < 6 ? ann.id : bob.id, status: 'backlog' })))
  const update = (key: string, body: Record<string, unknown>) => call(t.app, 'PATCH', `${base}/tasks/${key}`, { token: user.token, body })
  // Moves between open statuses from many connections at once: no change to the counts.
  await Promise.all(tasks.map((task, i) => update(task.key, { status: ['todo', 'in_progress', 'blocked', 'in_review'][i % 4] })))
  await update(tasks[0]!.key, { status: 'done' })
  await update(tasks[1]!.key, { status: 'cancelled' })
  await update(tasks[1]!.key, { status: 'todo' }) // reopened
  await update(tasks[2]!.key, { assignee_agent_id: bob.id })
  await update(tasks[3]!.key, { assignee_agent_id: null })
  await update(tasks[9]!.key, { assignee_agent_id: ann.id, status: 'done' }) // both at once
  expect((await call(t.app, 'DELETE', `${base}/tasks/${tasks[4]!.key}`, { token: user.token })).status).toBe(204)
  await createTask(t.app, user.token, company.id, { assignee_agent_id: bob.id, status: 'done' }) // created finished

  const kept = await assigneeCountsKept(company.id)
  expect(kept).toEqual(await assigneeCountsFromTasks(company.id))
  // Ann: 1, 5 (0 done, 2 and 3 gone, 4 deleted). Bob: 2, 6, 7, 8 (9 went to Ann, done).
  const open = Object.fromEntries(kept.map((row) => [row.agent_id, row.n]))
  expect([open[ann.id], open[bob.id]]).toEqual([2, 4])
  const agents = await call(t.app, 'GET', `${base}/agents`, { token: user.token })
  expect(agents.body.map((a: { name: string; open_tasks: number }) => [a.name, a.open_tasks]).sort()).toEqual([['Ann', 2], ['Bob', 4]])
})

async function goalCountsFromTasks(companyId: string) {
  return t.ctx.db.many<{ goal_id: string; total: number; done: number }>(
    `SELECT goal_id, count(*)::int AS total, (count(*) FILTER (WHERE status = 'done'))::int AS done FROM tasks
      WHERE company_id = $1 AND goal_id IS NOT NULL GROUP BY 1 ORDER BY 1`,
    [companyId],
  )
}

async function goalCountsKept(companyId: string) {
  return t.ctx.db.many<{ goal_id: string; total: number; done: number }>(
    `SELECT c.goal_id, sum(c.total)::int AS total, sum(c.done)::int AS done FROM goal_task_counts c JOIN goals g ON g.id = c.goal_id
      WHERE g.company_id = $1 GROUP BY 1 HAVING sum(c.total) <> 0 OR sum(c.done) <> 0 ORDER BY 1`,
    [companyId],
  )
}

it("count each goal's linked and done tasks for its tasks_total and tasks_done, through links, completion, reopening, moves between goals, deletes, a goal deleted and moves from many connections", async () => {
  const user = await createUser(t.ctx)
  const company = await createCompany(t.app, user.token)
  const base = `/api/companies/${company.id}`
  const goal = async (title: string) => (await call(t.app, 'POST', `${base}/goals`, { token: user.token, body: { title } })).body.id as string
  const [launch, hiring, doomed] = [await goal('Launch'), await goal('Hiring'), await goal('Doomed')]
  const tasks = await Promise.all(Array.from({ length: 12 }, (_, i) =>
    createTask(t.app, user.token, company.id, { goal_id: [launch, hiring, doomed][i % 3], status: i === 0 ? 'done' : 'todo' })))
  await createTask(t.app, user.token, company.id) // no goal
  const update = (key: string, body: Record<string, unknown>) => call(t.app, 'PATCH', `${base}/tasks/${key}`, { token: user.token, body })
  // From many connections at once: Launch's other tasks (3, 6, 9) done, Hiring's (1, 4, 7, 10) in review.
  await Promise.all(tasks.map((task, i) =>
    i % 3 === 0 && i > 0 ? update(task.key, { status: 'done' }) : i % 3 === 1 ? update(task.key, { status: 'in_review' }) : null))
  await update(tasks[3]!.key, { status: 'todo' }) // reopened
  await update(tasks[1]!.key, { status: 'done', goal_id: launch }) // done and moved at once
  await update(tasks[4]!.key, { goal_id: null })
  expect((await call(t.app, 'DELETE', `${base}/tasks/${tasks[6]!.key}`, { token: user.token })).status).toBe(204)
  await update(tasks[2]!.key, { goal_id: hiring }) // from Doomed
  expect((await call(t.app, 'DELETE', `${base}/goals/${doomed}`, { token: user.token })).status).toBe(204)

  const kept = await goalCountsKept(company.id)
  expect(kept).toEqual(await goalCountsFromTasks(company.id))
  // Launch: 0 done, 1 done, 3 reopened, 9 done (6 deleted). Hiring: 7, 10, 2 (1 moved, 4 unlinked).
  const goals = await call(t.app, 'GET', `${base}/goals`, { token: user.token })
  expect(goals.body.map((g: { title: string; tasks_done: number; tasks_total: number }) => [g.title, g.tasks_done, g.tasks_total])).toEqual([
    ['Launch', 3, 4], ['Hiring', 0, 3],
  ])
  expect((await call(t.app, 'GET', `${base}/goals/${hiring}`, { token: user.token })).body).toMatchObject({ tasks_done: 0, tasks_total: 3 })
  // Nothing is left behind for the deleted goal.
  expect(await t.ctx.db.many('SELECT * FROM goal_task_counts WHERE goal_id = $1', [doomed])).toEqual([])
})

it("count a goal's tasks linked before its counters were kept (migration 135)", async () => {
  const db = await emptyDb()
  try {
    const [before, after] = [readMigrations().filter((m) => m.version < 135), readMigrations().filter((m) => m.version >= 135)]
    await migrate(db, before)
    const goal = (await db.one<{ id: string }>(
      `WITH c AS (INSERT INTO companies (name, task_prefix) VALUES ('Old Co', 'OLD') RETURNING id)
       INSERT INTO goals (company_id, title) SELECT id, 'Old goal' FROM c RETURNING id`,
    ))!.id
    // Written without the counters' trigger: migrations include the newest version of its
    // function, which already counts by goal.
    await db.query('ALTER TABLE tasks DISABLE TRIGGER tasks_counted')
    await db.query(
      `INSERT INTO tasks (company_id, number, title, status, goal_id)
       SELECT g.company_id, n, 'Task ' || n, CASE WHEN n <= 2 THEN 'done' ELSE 'todo' END, g.id FROM goals g, generate_series(1, 5) n`,
    )
    await db.query('ALTER TABLE tasks ENABLE TRIGGER tasks_counted')
    await migrate(db, after)
    expect(await db.one('SELECT sum(total)::int AS total, sum(done)::int AS done FROM goal_task_counts WHERE goal_id = $1', [goal])).toEqual({ total: 5, done: 2 })
  } finally {
    await db.close()
  }
})
