// The dashboard's task counts come from task_counts, kept by triggers on every task write
// (migration 040). Whatever the writes, they must equal a count of the tasks themselves.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createCompany, createTask } from '../fixtures.ts'
import { call, createUser, type TestApp, testApp } from '../helpers.ts'

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

it('stay equal to the tasks through creates, moves, priority changes and deletes, and feed the dashboard', async () => {
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
