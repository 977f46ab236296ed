// A lookup by id or by key reads one row, in a company the planner's statistics have never
// seen. With statistics on company_id taken while a few companies existed (all of them in its
// most-common values), every company created since is believed to own no rows: a task by id
// was then found by reading the company's whole part of an index led by company_id (which
// looked as cheap as the primary key), and so was a run, and every write that first finds its
// row that way. Those statements now give the company in a form no index takes
// (`company_id IS NOT DISTINCT FROM $2`), so the primary key finds the row; a task by key and a
// list narrowed by assignee give it as a value seen only at execution (`(SELECT $1::uuid)`)
// (docs/ARCHITECTURE.md; test/foundation/lookups.test.ts keeps every statement so). The same
// holds for every request that is about a few rows of such a company: lists read in an index's
// whole order stop at their page, and statements that pin an agent, a task or a month read
// those rows, not the company's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fireHeartbeat } from '../../src/scheduler/fire.ts'
import { call, privateApp, rowsRead } from '../helpers.ts'
import { type Seeded, seedAgent, seedCompany } from '../runs/seed.ts'

// A database of this file's own, so that the statistics know exactly the companies made here;
// the app on one connection, so that the statements' counters are this connection's to read.
let t: Awaited<ReturnType<typeof privateApp>>
beforeAll(async () => {
  t = await privateApp({}, { connections: 1 })
})
afterAll(async () => {
  await t?.close()
})

const ROWS = 5000

type Table = 'tasks' | 'runs' | 'run_totals' | 'task_comments' | 'task_days'

/** `count` tasks and runs of the company, written in batches as a busy company writes them. */
async function fill(s: Seeded, agent: string, count: number) {
  for (let from = 1; from <= count; from += 1000) {
    const to = Math.min(count, from + 999)
    await t.ctx.db.query(
      `INSERT INTO tasks (company_id, number, title, status) SELECT $1, n, 'Task ' || n, 'todo' FROM generate_series($2::int, $3::int) n`,
      [s.companyId, from, to],
    )
    // Spread over days, as runs are: each day's totals row takes its own share.
    await t.ctx.db.query(
      `INSERT INTO runs (company_id, agent_id, status, trigger, created_at, started_at, ended_at)
       SELECT $1, $2, 'succeeded', 'manual', c, c, c FROM generate_series($3::int, $4::int) n,
              LATERAL (SELECT now() - make_interval(days => n % 400, secs => n) AS c) at`,
      [s.companyId, agent, from, to],
    )
  }
  await t.ctx.db.query('UPDATE companies SET last_task_number = $2 WHERE id = $1', [s.companyId, count])
  await t.ctx.db.query(
    `INSERT INTO task_comments (company_id, task_id, body, author_user_id)
     SELECT $1, id, 'Comment ' || n, $2 FROM tasks, generate_series(1, 20) n WHERE company_id = $1 AND number = 1`,
    [s.companyId, s.user.id],
  )
}

describe('a company unknown to the statistics', () => {
  let big: Seeded
  let bigAgent: string
  beforeAll(async () => {
    // Three small companies, then statistics, then a company grown since.
    for (let i = 0; i < 3; i++) {
      const small = await seedCompany(t)
      await fill(small, await seedAgent(t, small), 200)
    }
    await t.ctx.db.query('ANALYZE tasks, runs, run_totals, task_comments')
    big = await seedCompany(t, { prefix: 'BIG' })
    bigAgent = await seedAgent(t, big)
    await fill(big, bigAgent, ROWS)
  })

  it('reads only the rows each request is about: by id or key, pages of lists, an agent\'s, a task\'s or a month\'s rows', async () => {
    const task = await t.ctx.db.one<{ id: string }>('SELECT id FROM tasks WHERE company_id = $1 AND number = $2', [big.companyId, ROWS / 2])
    const run = await t.ctx.db.one<{ id: string }>('SELECT id FROM runs WHERE company_id = $1 ORDER BY created_at LIMIT 1', [big.companyId])
    const token = big.user.token
    const read: Record<string, number> = {}
    const step = async (name: string, table: Table, request: () => Promise<{ status: number; body: any }>, status = 200) => {
      const before = await rowsRead(t.ctx.db, table)
      const answer = await request()
      expect(answer.status).toBe(status)
      read[name] = (await rowsRead(t.ctx.db, table)) - before
      return answer.body
    }
    await step('task by id', 'tasks', () => call(t.app, 'GET', `${big.base}/tasks/${task!.id}`, { token }))
    await step('task by key', 'tasks', () => call(t.app, 'GET', `${big.base}/tasks/BIG-${ROWS / 2}`, { token }))
    await step('task update', 'tasks', () => call(t.app, 'PATCH', `${big.base}/tasks/${task!.id}`, { token, body: { priority: 'high' } }))
    await step('comment on the task', 'tasks', () => call(t.app, 'POST', `${big.base}/tasks/${task!.id}/comments`, { token, body: { body: 'Noted' } }), 201)
    await t.ctx.db.query('UPDATE tasks SET assignee_agent_id = $2 WHERE company_id = $1 AND number % 100 = 0', [big.companyId, bigAgent])
    // A list of one assignee's 50 tasks reads those (twice: the page, then its records), not the company's list.
    const listBefore = await rowsRead(t.ctx.db, 'tasks')
    const assigned = await call(t.app, 'GET', `${big.base}/tasks?assignee_agent_id=${bigAgent}&limit=500`, { token })
    expect(assigned.body).toHaveLength(ROWS / 100)
    expect((await rowsRead(t.ctx.db, 'tasks')) - listBefore).toBeLessThan(ROWS / 10)
    // So does the list of the tasks the caller created, 50 of the company's: those, not the
    // company's list nor all of a creator's tasks (the creator's index is in list order).
    await t.ctx.db.query('UPDATE tasks SET created_by_user_id = $2 WHERE company_id = $1 AND number % 100 = 50', [big.companyId, big.user.id])
    const mineBefore = await rowsRead(t.ctx.db, 'tasks')
    const mine = await call(t.app, 'GET', `${big.base}/tasks?created_by=me&limit=500`, { token })
    expect(mine.body).toHaveLength(ROWS / 100)
    expect((await rowsRead(t.ctx.db, 'tasks')) - mineBefore).toBeLessThan(ROWS / 10)
    // A subtask an agent made, closed: the parent's agent is woken once its subtasks are all
    // closed, which reads the parent's subtasks; deleting the parent then detaches them.
    const parent = await t.ctx.db.one<{ id: string }>('UPDATE tasks SET assignee_agent_id = $2 WHERE company_id = $1 AND number = 1 RETURNING id', [big.companyId, bigAgent])
    const subtask = await t.ctx.db.one<{ id: string }>(
      `UPDATE tasks SET parent_id = $2, created_by_agent_id = $3 WHERE company_id = $1 AND number = 2 RETURNING id`,
      [big.companyId, parent!.id, bigAgent],
    )
    await step('subtask closed', 'tasks', () => call(t.app, 'PATCH', `${big.base}/tasks/${subtask!.id}`, { token, body: { status: 'done' } }))
    await step('parent deleted', 'tasks', () => call(t.app, 'DELETE', `${big.base}/tasks/${parent!.id}`, { token }), 204)
    await step('run by id', 'runs', () => call(t.app, 'GET', `${big.base}/runs/${run!.id}`, { token }))
    const woken = await call(t.app, 'POST', `${big.base}/agents/${bigAgent}/wake`, { token, body: { task_id: task!.id } })
    expect(woken.status).toBe(201)
    await step('run cancelled', 'runs', () => call(t.app, 'POST', `${big.base}/runs/${woken.body.id}/cancel`, { token }))
    // Tasks of a status few have, alone or with another: those (each status is a branch of
    // its own through tasks_status; as one filter, the company's list was walked whole).
    await t.ctx.db.query(`UPDATE tasks SET status = 'in_review' WHERE company_id = $1 AND number IN (3, 4)`, [big.companyId])
    for (const [name, query] of [['tasks in review', '?status=in_review'], ['tasks in review or blocked', '?status=in_review&status=blocked']]) {
      const page = await step(name!, 'tasks', () => call(t.app, 'GET', `${big.base}/tasks${query}`, { token }))
      expect(page.map((task: { key: string }) => task.key)).toEqual(['BIG-4', 'BIG-3'])
    }
    // The runs page, newest first (100 a page), whole or of one agent or task: that page. (The
    // task's runs are old ones, so that their former versions lie outside the newest pages.)
    await t.ctx.db.query(`UPDATE runs SET task_id = $2 WHERE company_id = $1 AND created_at < now() - interval '385 days'`, [big.companyId, task!.id])
    for (const [name, query] of [['runs page', ''], ['runs of an agent', `?agent_id=${bigAgent}`], ['runs of a task', `?task_id=${task!.id}`]]) {
      const page = await step(name!, 'runs', () => call(t.app, 'GET', `${big.base}/runs${query}`, { token }))
      expect(page).toHaveLength(100)
      read[name!] -= 100
    }
    // This month's costs read this month's totals (a row a day here, twice: the figures and
    // the forecast, with the former versions of those rows the fill left in the index), not
    // ten years of them. (From 410 days back: the seeded runs reach 399 days and up to a day of
    // seconds before now, so past midnight their oldest days held rows 400 and 401 days back.)
    await t.ctx.db.query(
      `INSERT INTO run_totals (company_id, day, agent_id, runs, runs_succeeded, cost_cents)
       SELECT $1, current_date - d, $2, 1, 1, 5 FROM generate_series(410, 3650) d`,
      [big.companyId, bigAgent],
    )
    const month = await step('costs', 'run_totals', () => call(t.app, 'GET', `${big.base}/costs`, { token }))
    expect(month.by_day.length).toBeGreaterThanOrEqual(28)
    expect(read.costs).toBeLessThan(500)
    delete read.costs
    // The dashboard's series: the range's days of task counts, not the company's 400.
    await t.ctx.db.query(
      `INSERT INTO task_days (company_id, day, created) SELECT $1, current_date - d, 1 FROM generate_series(1, 400) d ON CONFLICT DO NOTHING`,
      [big.companyId],
    )
    const board = await step('dashboard series', 'task_days', () => call(t.app, 'GET', `${big.base}/dashboard`, { token }))
    expect(board.series).toHaveLength(14)
    // A day not yet folded has a row per connection slot that wrote it (docs/runs.md): the
    // range's rows are those, not a row a day.
    const slotRows = await t.ctx.db.one<{ n: number }>(
      `SELECT (count(*) - count(DISTINCT day))::int AS n FROM task_days WHERE company_id = $1 AND day >= current_date - 13`, [big.companyId])
    read['dashboard series'] -= slotRows!.n
    // A scheduled heartbeat of an agent that skips idle slots asks whether it has work: its
    // own open tasks, not the company's (5,000 todo, none of them its own).
    const quiet = await seedAgent(t, big, { name: 'Quiet' })
    await t.ctx.db.query(`UPDATE agents SET heartbeat_cron = '0 * * * *', heartbeat_skip_idle = true WHERE id = $1`, [quiet])
    const heartbeat = { kind: 'heartbeat' as const, id: quiet, companyId: big.companyId, cron: '0 * * * *' }
    const before = await rowsRead(t.ctx.db, 'tasks')
    expect(await fireHeartbeat(t.ctx, heartbeat, { at: new Date(Date.UTC(2031, 0, 1)), windowMs: 1000 })).toBe('idle')
    read['idle heartbeat'] = (await rowsRead(t.ctx.db, 'tasks')) - before
    // A comment of a long task, edited and deleted: that comment, not the task's 2,000 (each
    // older than "Noted", whenever this runs: counted back from it, not from now).
    await t.ctx.db.query(
      `INSERT INTO task_comments (company_id, task_id, body, author_user_id, created_at)
       SELECT $1, $2, 'Comment ' || n, $3, (SELECT min(created_at) FROM task_comments WHERE task_id = $2) - make_interval(secs => n)
         FROM generate_series(1, 2000) n`,
      [big.companyId, task!.id, big.user.id],
    )
    const comment = await t.ctx.db.one<{ id: string }>('SELECT id FROM task_comments WHERE task_id = $1 ORDER BY created_at LIMIT 1', [task!.id])
    const commentPath = `${big.base}/tasks/${task!.id}/comments/${comment!.id}`
    await step('comment edited', 'task_comments', () => call(t.app, 'PATCH', commentPath, { token, body: { body: 'Edited' } }))
    await step('comment deleted', 'task_comments', () => call(t.app, 'DELETE', commentPath, { token }), 204)
    // A run claimed on that task carries its last 20 comments: those, not the 2,000.
    const worker = await seedAgent(t, big, { name: 'Worker' })
    expect((await call(t.app, 'POST', `${big.base}/agents/${worker}/wake`, { token, body: { task_id: task!.id } })).status).toBe(201)
    const claimed = await step('claim with comments', 'task_comments', () => call(t.app, 'POST', `${big.base}/runs/claim`, { token, body: { runner_id: 'r1' } }))
    expect(claimed.task.comments).toHaveLength(20)
    expect(claimed.task.comments.slice(-2).map((c: { body: string }) => c.body)).toEqual(['Comment 1', 'Noted'])
    read['claim with comments'] -= 20
    // Terminating an agent cancels its queued and running runs: those, not the company's.
    const leaving = await seedAgent(t, big, { name: 'Leaving' })
    expect((await call(t.app, 'POST', `${big.base}/agents/${leaving}/wake`, { token, body: {} })).status).toBe(201)
    await step('agent terminated', 'runs', () => call(t.app, 'POST', `${big.base}/agents/${leaving}/terminate`, { token }))
    expect(await t.ctx.db.one('SELECT status FROM runs WHERE agent_id = $1', [leaving])).toEqual({ status: 'cancelled' })
    // Planned for a company believed empty, each of these read the company's 5,000 rows.
    expect(Object.entries(read).filter(([, rows]) => rows > 20)).toEqual([])
  })
})
