import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCompany, createTask, hireAgent } from '../fixtures.ts'
import { call, createUser, type TestApp, type TestUser, testApp } from '../helpers.ts'
import { auditRows, countRows, insertRun, recordEvents } from './support.ts'
import type { Queryable } from '../../src/server/db/db.ts'
import { listTasksJson } from '../../src/domain/tasks/list.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

async function setup(body: Record<string, unknown> = {}) {
  const user = await createUser(t.ctx, 'Task Person')
  const company = await createCompany(t.app, user.token, body)
  return { user, company, base: `/api/companies/${company.id}` }
}

const post = (user: TestUser, url: string, body?: unknown) => call(t.app, 'POST', url, { token: user.token, body })
const patch = (user: TestUser, url: string, body: unknown) => call(t.app, 'PATCH', url, { token: user.token, body })
const get = (user: TestUser, url: string) => call(t.app, 'GET', url, { token: user.token })

function runsOf(companyId: string) {
  return t.ctx.db.many<{ id: string; agent_id: string; task_id: string; trigger: string; status: string }>(
    'SELECT id, agent_id, task_id, trigger, status FROM runs WHERE company_id = $1 ORDER BY created_at', [companyId])
}

describe('create and get', () => {
  it('creates with defaults, a key from the prefix, an audit event and task.created', async () => {
    const { user, company, base } = await setup({ task_prefix: 'ENG' })
    const events = recordEvents(t.ctx, company.id)
    const r = await post(user, `${base}/tasks`, { title: 'First' })
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({
      key: 'ENG-1', number: 1, title: 'First', description: null, status: 'todo', priority: 'medium',
      assignee_agent_id: null, project_id: null, goal_id: null, parent_id: null, due_date: null, sort_order: 0,
      created_by_agent_id: null, created_by_user_id: user.id, started_at: null, completed_at: null,
    })
    expect(events).toEqual([{ type: 'task.created', id: r.body.id }])
    const [audit] = await auditRows(t.ctx, company.id, r.body.id)
    expect(audit).toMatchObject({ actor_type: 'user', verb: 'created', entity_type: 'task', label: 'ENG-1 First' })
    // On create, changes hold every field that has a value: [null, value].
    expect(audit.changes).toEqual({ title: [null, 'First'], status: [null, 'todo'], priority: [null, 'medium'], sort_order: [null, 0] })
    const second = await post(user, `${base}/tasks`, { title: 'Second', description: 'Why', due_date: '2026-12-01', sort_order: 3 })
    expect(second.body.key).toBe('ENG-2')
    const [secondAudit] = await auditRows(t.ctx, company.id, second.body.id)
    expect(secondAudit.changes).toEqual({
      title: [null, 'Second'], description: [null, 'Why'], status: [null, 'todo'], priority: [null, 'medium'],
      due_date: [null, '2026-12-01T00:00:00.000000+00:00'], sort_order: [null, 3],
    })
    expect(second.body.due_date).toBe('2026-12-01T00:00:00.000000+00:00') // the audit shows values as the API does
  })

  it('numbers tasks per company from 1', async () => {
    const a = await setup()
    const b = await setup()
    await createTask(t.app, a.user.token, a.company.id)
    await createTask(t.app, a.user.token, a.company.id)
    expect((await createTask(t.app, b.user.token, b.company.id)).number).toBe(1)
  })

  it('finds a task by UUID or key, the prefix case-insensitively; anything else is 404', async () => {
    const { user, company, base } = await setup({ task_prefix: 'OPS' })
    const task = await createTask(t.app, user.token, company.id)
    for (const ref of [task.id, 'OPS-1', 'ops-1', 'Ops-1']) {
      const r = await get(user, `${base}/tasks/${ref}`)
      expect(r.status, ref).toBe(200)
      expect(r.body.id).toBe(task.id)
    }
    for (const ref of ['OPS-2', 'OPS-01', 'OPS-0', 'SVC-1', 'OPS-99999999999', 'nonsense', '5f8a2b6e-0000-4000-8000-000000000000']) {
      const r = await get(user, `${base}/tasks/${ref}`)
      expect(r.status, ref).toBe(404)
      expect(r.body.error.message).toBe('Task not found')
    }
    const other = await setup({ task_prefix: 'OPS' })
    expect((await get(other.user, `${other.base}/tasks/${task.id}`)).status).toBe(404)
    expect((await get(other.user, `${base}/tasks/${task.id}`)).status).toBe(404) // not a member
  })

  it('validates the body strictly', async () => {
    const { user, company, base } = await setup()
    for (const body of [{}, { title: '' }, { title: 'x'.repeat(301) }, { title: 'A', status: 'open' }, { title: 'A', priority: 'p1' },
      { title: 'A', assignee_agent_id: 'x' }, { title: 'A', due_date: 'soon' }, { title: 'A', sort_order: '1' }, { title: 5 }]) {
      const r = await post(user, `${base}/tasks`, body)
      expect(r.status, JSON.stringify(body)).toBe(422)
    }
    expect(await countRows(t.ctx, 'tasks', company.id)).toBe(0)
  })

  it('accepts a due date with or without an offset (read as UTC), or a plain date', async () => {
    const { user, company } = await setup()
    expect((await createTask(t.app, user.token, company.id, { due_date: '2030-05-01T10:00:00' })).due_date).toBe('2030-05-01T10:00:00.000000+00:00')
    expect((await createTask(t.app, user.token, company.id, { due_date: '2030-05-01T10:00:00+02:00' })).due_date).toBe('2030-05-01T08:00:00.000000+00:00')
    expect((await createTask(t.app, user.token, company.id, { due_date: '2030-05-01' })).due_date).toBe('2030-05-01T00:00:00.000000+00:00')
  })
})

describe('links must be in the company, and a failed write leaves nothing', () => {
  it('404 names the entity and consumes no number, audit or run', async () => {
    const { user, company, base } = await setup()
    const other = await setup()
    const agent = await hireAgent(t.app, user.token, company.id)
    const foreignAgent = await hireAgent(t.app, other.user.token, other.company.id)
    const foreignTask = await createTask(t.app, other.user.token, other.company.id)
    const foreignGoal = (await post(other.user, `${other.base}/goals`, { title: 'G' })).body
    const foreignProject = (await post(other.user, `${other.base}/projects`, { name: 'P' })).body
    await createTask(t.app, user.token, company.id)
    const auditBefore = await countRows(t.ctx, 'audit_events', company.id)

    const cases: [Record<string, unknown>, string][] = [
      [{ assignee_agent_id: foreignAgent.id }, 'Assignee not found'],
      [{ assignee_agent_id: agent.id, project_id: foreignProject.id }, 'Project not found'],
      [{ assignee_agent_id: agent.id, goal_id: foreignGoal.id }, 'Goal not found'],
      [{ assignee_agent_id: agent.id, parent_id: foreignTask.id }, 'Parent task not found'],
    ]
    for (const [body, message] of cases) {
      const r = await post(user, `${base}/tasks`, { title: 'Nope', ...body })
      expect(r.status).toBe(404)
      expect(r.body.error).toMatchObject({ code: 'NOT_FOUND', message })
    }
    const badRun = await post(user, `${base}/tasks`, { title: 'Nope', assignee_agent_id: agent.id, run_id: '5f8a2b6e-0000-4000-8000-000000000000' })
    expect(badRun.status).toBe(400)
    // A failure raised by the database after the number was taken (year 0 is out of range).
    const late = await post(user, `${base}/tasks`, { title: 'Nope', assignee_agent_id: agent.id, due_date: '0000-01-01' })
    expect(late.status).toBe(422)

    expect(await countRows(t.ctx, 'tasks', company.id)).toBe(1)
    expect(await countRows(t.ctx, 'runs', company.id)).toBe(0)
    expect(await countRows(t.ctx, 'audit_events', company.id)).toBe(auditBefore)
    expect((await createTask(t.app, user.token, company.id)).number).toBe(2)
  })
})

describe('status stamps', () => {
  it('stamps started_at once and sets/clears completed_at', async () => {
    const { user, company, base } = await setup()
    expect((await createTask(t.app, user.token, company.id, { status: 'in_progress' })).started_at).toEqual(expect.any(String))
    const createdDone = await createTask(t.app, user.token, company.id, { status: 'done' })
    expect(createdDone.completed_at).toEqual(expect.any(String))

    const task = await createTask(t.app, user.token, company.id)
    const url = `${base}/tasks/${task.key}`
    const started = (await patch(user, url, { status: 'in_progress' })).body
    expect(started.started_at).toEqual(expect.any(String))
    expect(started.completed_at).toBe(null)
    await patch(user, url, { status: 'in_review' })
    const again = (await patch(user, url, { status: 'in_progress' })).body
    expect(again.started_at).toBe(started.started_at)

    const done = (await patch(user, url, { status: 'done' })).body
    expect(done.completed_at).toEqual(expect.any(String))
    const stillDone = (await patch(user, url, { status: 'done', title: 'Renamed' })).body
    expect(stillDone.completed_at).toBe(done.completed_at)
    const reopened = (await patch(user, url, { status: 'todo' })).body
    expect(reopened.completed_at).toBe(null)
    expect(reopened.started_at).toBe(started.started_at)
  })
})

describe('update', () => {
  it('changes only present fields, audits field-level changes (moved for a status change) and publishes only on change', async () => {
    const { user, company, base } = await setup()
    const task = await createTask(t.app, user.token, company.id, { title: 'Old', description: 'keep' })
    const events = recordEvents(t.ctx, company.id)
    const url = `${base}/tasks/${task.id}`

    const r = await patch(user, url, { title: 'New', priority: 'high', due_date: '2031-01-01T00:00:00Z', sort_order: 3 })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ title: 'New', description: 'keep', priority: 'high', sort_order: 3, due_date: '2031-01-01T00:00:00.000000+00:00' })
    let audit = (await auditRows(t.ctx, company.id, task.id)).at(-1)!
    expect(audit.verb).toBe('updated')
    expect(audit.changes).toEqual({
      title: ['Old', 'New'], priority: ['medium', 'high'], due_date: [null, '2031-01-01T00:00:00.000000+00:00'], sort_order: [0, 3],
    })
    expect(events).toEqual([{ type: 'task.updated', id: task.id }])

    // The same values again (the date spelled differently): nothing changes, nothing is published.
    const same = await patch(user, url, { title: 'New', due_date: '2031-01-01T01:00:00+01:00' })
    expect(same.status).toBe(200)
    expect(events).toHaveLength(1)

    await patch(user, url, { status: 'blocked', description: null })
    audit = (await auditRows(t.ctx, company.id, task.id)).at(-1)!
    expect(audit.verb).toBe('moved')
    expect(audit.changes).toEqual({ status: ['todo', 'blocked'], description: ['keep', null] })
    expect(events).toHaveLength(2)
  })

  it('ignores a parent equal to the task itself and rejects a subtask as parent with TASK_CYCLE', async () => {
    const { user, company, base } = await setup()
    const root = await createTask(t.app, user.token, company.id)
    const child = await createTask(t.app, user.token, company.id, { parent_id: root.id })
    const grandchild = await createTask(t.app, user.token, company.id, { parent_id: child.id })
    const events = recordEvents(t.ctx, company.id)

    const self = await patch(user, `${base}/tasks/${root.key}`, { parent_id: root.id })
    expect(self.status).toBe(200)
    expect(self.body.parent_id).toBe(null)
    expect(events).toEqual([])

    for (const parent of [child, grandchild]) {
      const r = await patch(user, `${base}/tasks/${root.key}`, { parent_id: parent.id })
      expect(r.status).toBe(400)
      expect(r.body.error.code).toBe('TASK_CYCLE')
    }
    const moved = await patch(user, `${base}/tasks/${grandchild.key}`, { parent_id: root.id })
    expect(moved.body.parent_id).toBe(root.id)
  })
})

describe('ids in capitals', () => {
  it('are the same ids: an unchanged assignee or its own parent is no change, and events reach the company', async () => {
    const { user, company, base } = await setup()
    const agent = await hireAgent(t.app, user.token, company.id)
    const task = (await post(user, `${base}/tasks`, { title: 'Assigned', assignee_agent_id: agent.id })).body
    const runsBefore = await runsOf(company.id)
    const auditBefore = await countRows(t.ctx, 'audit_events', company.id)
    const events = recordEvents(t.ctx, company.id)
    const upper = `/api/companies/${company.id.toUpperCase()}/tasks/${task.id.toUpperCase()}`
    const same = await patch(user, upper, { assignee_agent_id: agent.id.toUpperCase(), parent_id: task.id.toUpperCase() })
    expect(same.status).toBe(200)
    expect(same.body).toMatchObject({ assignee_agent_id: agent.id, parent_id: null })
    expect(await runsOf(company.id)).toEqual(runsBefore)
    expect(await countRows(t.ctx, 'audit_events', company.id)).toBe(auditBefore)
    expect(events).toEqual([])
    // A real change made through capitals is published on the company's own (lower-case) id.
    const renamed = await patch(user, upper, { title: 'Renamed' })
    expect(renamed.status).toBe(200)
    expect(events).toEqual([{ type: 'task.updated', id: task.id }])
  })
})

describe('assignment runs', () => {
  it('queues an assignment run on create with an available assignee and open status', async () => {
    const { user, company } = await setup()
    const agent = await hireAgent(t.app, user.token, company.id)
    const events = recordEvents(t.ctx, company.id)
    const task = await createTask(t.app, user.token, company.id, { assignee_agent_id: agent.id })
    const runs = await runsOf(company.id)
    expect(runs).toEqual([expect.objectContaining({ agent_id: agent.id, task_id: task.id, trigger: 'assignment', status: 'queued' })])
    expect(events).toEqual([
      { type: 'task.created', id: task.id },
      { type: 'run.created', id: runs[0].id, agent_id: agent.id },
    ])
  })

  it('queues nothing for backlog, done or cancelled tasks, or for a dormant assignee', async () => {
    const { user, company } = await setup()
    const agent = await hireAgent(t.app, user.token, company.id)
    for (const status of ['backlog', 'done', 'cancelled']) {
      await createTask(t.app, user.token, company.id, { assignee_agent_id: agent.id, status })
    }
    const paused = await hireAgent(t.app, user.token, company.id)
    await call(t.app, 'POST', `/api/companies/${company.id}/agents/${paused.id}/pause`, { token: user.token })
    const pending = await hireAgent(t.app, user.token, company.id, { request_approval: true })
    await createTask(t.app, user.token, company.id, { assignee_agent_id: paused.id })
    await createTask(t.app, user.token, company.id, { assignee_agent_id: pending.id })
    expect(await runsOf(company.id)).toEqual([])
  })

  it('queues on reassignment only, and reuses an identical queued run', async () => {
    const { user, company, base } = await setup()
    const a = await hireAgent(t.app, user.token, company.id)
    const b = await hireAgent(t.app, user.token, company.id)
    const task = await createTask(t.app, user.token, company.id, { assignee_agent_id: a.id })
    const url = `${base}/tasks/${task.key}`
    const [first] = await runsOf(company.id)

    await patch(user, url, { title: 'Retitled', status: 'in_review' }) // not a reassignment
    expect(await runsOf(company.id)).toHaveLength(1)

    const events = recordEvents(t.ctx, company.id)
    await patch(user, url, { assignee_agent_id: b.id })
    let runs = await runsOf(company.id)
    expect(runs).toHaveLength(2)
    expect(runs[1]).toMatchObject({ agent_id: b.id, task_id: task.id, trigger: 'assignment' })

    // Back to A, whose run for this task is still queued: that run is reused and announced again.
    await patch(user, url, { assignee_agent_id: a.id })
    runs = await runsOf(company.id)
    expect(runs).toHaveLength(2)
    expect(events.filter((e) => e.type === 'run.created')).toEqual([
      { type: 'run.created', id: runs[1].id, agent_id: b.id },
      { type: 'run.created', id: first.id, agent_id: a.id },
    ])

    // Reassigning a backlog task, or unassigning, queues nothing.
    await patch(user, url, { status: 'backlog', assignee_agent_id: b.id })
    await patch(user, url, { assignee_agent_id: null })
    expect(await runsOf(company.id)).toHaveLength(2)
  })
})

describe('acting as an agent with run_id', () => {
  it('attributes creates and updates to the running run\'s agent', async () => {
    const { user, company, base } = await setup()
    const agent = await hireAgent(t.app, user.token, company.id, { name: 'Robo' })
    const runId = await insertRun(t.ctx, { companyId: company.id, agentId: agent.id, status: 'running' })
    const r = await post(user, `${base}/tasks`, { title: 'By agent', run_id: runId })
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({ created_by_agent_id: agent.id, created_by_user_id: null })
    await patch(user, `${base}/tasks/${r.body.key}`, { status: 'in_progress', run_id: runId })
    const audit = await auditRows(t.ctx, company.id, r.body.id)
    for (const row of audit) {
      expect(row).toMatchObject({ actor_type: 'agent', actor_name: 'Robo', actor_agent_id: agent.id, actor_user_id: null, run_id: runId })
    }
    expect(audit.map((a) => a.verb)).toEqual(['created', 'moved'])
  })

  it('answers RUN_NOT_RUNNING for a queued, finished, unknown or foreign run', async () => {
    const { user, company, base } = await setup()
    const other = await setup()
    const agent = await hireAgent(t.app, user.token, company.id)
    const foreignAgent = await hireAgent(t.app, other.user.token, other.company.id)
    const task = await createTask(t.app, user.token, company.id)
    const runs = [
      await insertRun(t.ctx, { companyId: company.id, agentId: agent.id, status: 'queued' }),
      await insertRun(t.ctx, { companyId: company.id, agentId: agent.id, status: 'succeeded' }),
      await insertRun(t.ctx, { companyId: other.company.id, agentId: foreignAgent.id, status: 'running' }),
      '5f8a2b6e-0000-4000-8000-000000000000',
    ]
    for (const runId of runs) {
      const created = await post(user, `${base}/tasks`, { title: 'X', run_id: runId })
      expect(created.status).toBe(400)
      expect(created.body.error.code).toBe('RUN_NOT_RUNNING')
      const updated = await patch(user, `${base}/tasks/${task.id}`, { title: 'Y', run_id: runId })
      expect(updated.body.error.code).toBe('RUN_NOT_RUNNING')
    }
    expect((await get(user, `${base}/tasks/${task.id}`)).body.title).toBe(task.title)
    expect(await countRows(t.ctx, 'tasks', company.id)).toBe(1)
  })
})

describe('list', () => {
  it('orders by sort_order then newest number, and combines filters with AND', async () => {
    const { user, company, base } = await setup()
    const member = await createUser(t.ctx)
    await t.ctx.db.query(`INSERT INTO memberships (company_id, user_id, role) VALUES ($1, $2, 'member')`, [company.id, member.id])
    const agent = await hireAgent(t.app, user.token, company.id)
    const project = (await post(user, `${base}/projects`, { name: 'P' })).body
    const goal = (await post(user, `${base}/goals`, { title: 'G' })).body
    const t1 = await createTask(t.app, user.token, company.id, { title: 'Fix login bug', status: 'todo', assignee_agent_id: agent.id })
    const t2 = await createTask(t.app, user.token, company.id, { title: 'Write docs', description: 'About the LOGIN page', status: 'blocked', project_id: project.id })
    const t3 = await createTask(t.app, user.token, company.id, { title: '100% plan_b', status: 'done', goal_id: goal.id, parent_id: t1.id })
    const t4 = await createTask(t.app, member.token, company.id, { title: 'Pinned', status: 'todo', project_id: project.id })
    await patch(user, `${base}/tasks/${t4.id}`, { sort_order: -1 })
    const ids = async (query: string) => (await get(user, `${base}/tasks${query}`)).body.map((x: any) => x.key)

    expect(await ids('')).toEqual([t4.key, t3.key, t2.key, t1.key])
    expect(await ids('?status=todo')).toEqual([t4.key, t1.key])
    expect(await ids('?status=todo&status=blocked')).toEqual([t4.key, t2.key, t1.key])
    expect(await ids(`?assignee_agent_id=${agent.id}`)).toEqual([t1.key])
    expect(await ids(`?project_id=${project.id}`)).toEqual([t4.key, t2.key])
    expect(await ids(`?project_id=${project.id}&status=blocked`)).toEqual([t2.key])
    expect(await ids(`?goal_id=${goal.id}`)).toEqual([t3.key])
    expect(await ids(`?parent_id=${t1.id}`)).toEqual([t3.key])
    expect(await ids('?q=LOGIN')).toEqual([t2.key, t1.key])
    expect(await ids('?q=login&status=todo')).toEqual([t1.key])
    expect(await ids('?q=100%25')).toEqual([t3.key])
    expect(await ids('?q=%25')).toEqual([t3.key]) // % is literal, not a wildcard
    expect(await ids('?q=n_b')).toEqual([t3.key]) // _ is literal, not a wildcard ("login bug" does not match)
    expect(await ids('?created_by=me')).toEqual([t3.key, t2.key, t1.key])
    expect(await ids('?limit=2')).toEqual([t4.key, t3.key])
  })

  it('lists each task exactly as GET answers it, every field, timestamps to the microsecond', async () => {
    const { user, company, base } = await setup({ task_prefix: 'LIS' })
    const agent = await hireAgent(t.app, user.token, company.id)
    const project = (await post(user, `${base}/projects`, { name: 'P' })).body
    const goal = (await post(user, `${base}/goals`, { title: 'G' })).body
    const parent = await createTask(t.app, user.token, company.id, { title: 'Plain' })
    await createTask(t.app, user.token, company.id, {
      title: 'Everything "quoted" \\ and ünïcode ✓', description: 'Line one\nline two\ttabbed', status: 'in_progress', priority: 'urgent',
      assignee_agent_id: agent.id, project_id: project.id, goal_id: goal.id, parent_id: parent.id, due_date: '2026-12-01', sort_order: -5,
    })
    const done = await createTask(t.app, user.token, company.id, { title: 'Done', due_date: '2027-01-02T03:04:05.5Z' })
    await patch(user, `${base}/tasks/${done.id}`, { status: 'done' })
    // Stamps whose text form drops digits of the fraction, or the fraction altogether.
    await t.ctx.db.query(`UPDATE tasks SET created_at = '2026-03-04T05:06:07Z', updated_at = '2026-03-04T05:06:07.000010Z' WHERE id = $1`, [parent.id])
    const list = await get(user, `${base}/tasks`)
    expect(list.status).toBe(200)
    expect(list.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(list.body).toHaveLength(3)
    for (const listed of list.body) expect(listed).toEqual((await get(user, `${base}/tasks/${listed.id}`)).body)
    const plain = list.body.find((x: any) => x.id === parent.id)
    expect([plain.created_at, plain.updated_at]).toEqual(['2026-03-04T05:06:07.000000+00:00', '2026-03-04T05:06:07.000010+00:00'])
    expect(list.body.map((x: any) => Object.keys(x))).toEqual(Array(3).fill(Object.keys(plain)))
    expect((await get(user, `${base}/tasks?status=blocked`)).body).toEqual([])
  })

  it('shows every change of a listed task, whichever statement made it', async () => {
    const { user, company, base } = await setup()
    const [a, b] = [await createTask(t.app, user.token, company.id, { title: 'A' }), await createTask(t.app, user.token, company.id, { title: 'B' })]
    expect((await get(user, `${base}/tasks`)).body.map((x: any) => x.title)).toEqual(['B', 'A'])
    await patch(user, `${base}/tasks/${a.id}`, { title: 'A again', status: 'in_progress' })
    // As another instance, a trigger or an import would: not through the task service.
    await t.ctx.db.query(`UPDATE tasks SET title = 'B again' WHERE id = $1`, [b.id])
    const list = await get(user, `${base}/tasks`)
    expect(list.body.map((x: any) => [x.title, x.status])).toEqual([['B again', 'todo'], ['A again', 'in_progress']])
    for (const listed of list.body) expect(listed).toEqual((await get(user, `${base}/tasks/${listed.id}`)).body)
  })

  it('answers one moment when a listed task changes while the page is being written', async () => {
    const { user, company } = await setup()
    for (const title of ['One', 'Two', 'Three', 'Four']) await createTask(t.app, user.token, company.id, { title })
    const two = await t.ctx.db.one<{ id: string }>(`SELECT id FROM tasks WHERE company_id = $1 AND title = 'Two'`, [company.id])
    const rename = (title: string) => t.ctx.db.query('UPDATE tasks SET title = $2 WHERE id = $1', [two!.id, title])
    // The real database, through a handle of its own (so a page of its own is known), that
    // can slip a write in after the page's first statement.
    let slip: string | null = null
    let statements = 0
    const db: Queryable = {
      ...t.ctx.db,
      async many(sql, params) {
        const rows = await t.ctx.db.many(sql, params)
        statements++
        if (slip) await rename(slip)
        slip = null
        return rows as any
      },
    }
    const list = async () => JSON.parse(await listTasksJson(db, company.id, user.id, { limit: 500 })).map((x: any) => x.title)
    expect(await list()).toEqual(['Four', 'Three', 'Two', 'One'])
    await rename('Two, changed')
    statements = 0
    expect(await list()).toEqual(['Four', 'Three', 'Two, changed', 'One'])
    expect(statements).toBe(2) // the versions, then the one task changed
    await rename('Two, changed again')
    slip = 'Two, changed at last'
    statements = 0
    expect(await list()).toEqual(['Four', 'Three', 'Two, changed at last', 'One'])
    expect(statements).toBe(3) // the versions, the changed task (not found: changed again), the whole page
  })

  it('answers at most 500 tasks by default', async () => {
    const { user, company, base } = await setup()
    await t.ctx.db.query(
      `INSERT INTO tasks (company_id, number, title) SELECT $1, n, 'Bulk ' || n FROM generate_series(1, 505) n`, [company.id])
    const r = await get(user, `${base}/tasks`)
    expect(r.body).toHaveLength(500)
    expect(r.body[0].number).toBe(505)
  })

  it('rejects bad filters and limits with 422', async () => {
    const { user, base } = await setup()
    for (const query of ['?limit=0', '?limit=1001', '?status=open', '?assignee_agent_id=x', '?created_by=you']) {
      expect((await get(user, `${base}/tasks${query}`)).status, query).toBe(422)
    }
    expect((await get(user, `${base}/tasks?limit=1000`)).status).toBe(200)
  })
})

describe('delete', () => {
  it('deletes the task and its comments, detaches subtasks, cancels its queued runs and never reuses the number', async () => {
    const { user, company, base } = await setup()
    const agent = await hireAgent(t.app, user.token, company.id)
    const parent = await createTask(t.app, user.token, company.id)
    const task = await createTask(t.app, user.token, company.id, { assignee_agent_id: agent.id, parent_id: parent.id })
    const sub = await createTask(t.app, user.token, company.id, { parent_id: task.id })
    await post(user, `${base}/tasks/${task.key}/comments`, { body: 'hello' })
    const [run] = await runsOf(company.id)
    const events = recordEvents(t.ctx, company.id)

    const r = await call(t.app, 'DELETE', `${base}/tasks/${task.key}`, { token: user.token })
    expect(r.status).toBe(204)
    expect(r.body).toBe(null)
    expect(events).toEqual([
      { type: 'agent.updated', id: agent.id },
      { type: 'run.updated', id: run.id, agent_id: agent.id, status: 'cancelled' },
      { type: 'task.updated', id: sub.id },
      { type: 'task.deleted', id: task.id },
    ])
    expect((await get(user, `${base}/tasks/${task.id}`)).status).toBe(404)
    expect((await get(user, `${base}/tasks/${sub.id}`)).body.parent_id).toBe(null)
    // The detached subtask's change is in the activity like any other.
    expect(await auditRows(t.ctx, company.id, sub.id)).toContainEqual(expect.objectContaining({
      verb: 'updated', entity_type: 'task', label: `${sub.key} ${sub.title}`, changes: { parent_id: [task.id, null] },
    }))
    expect(await t.ctx.db.one('SELECT count(*)::int AS n FROM task_comments WHERE task_id = $1', [task.id])).toEqual({ n: 0 })
    expect(await t.ctx.db.one('SELECT status, task_id FROM runs WHERE id = $1', [run.id])).toEqual({ status: 'cancelled', task_id: null })
    const audit = (await auditRows(t.ctx, company.id, task.id)).at(-1)!
    expect(audit).toMatchObject({ verb: 'deleted', entity_type: 'task' })

    // Delete the newest task too: numbers still go on from the highest ever used.
    await call(t.app, 'DELETE', `${base}/tasks/${sub.key}`, { token: user.token })
    expect((await createTask(t.app, user.token, company.id)).number).toBe(4)
    expect((await call(t.app, 'DELETE', `${base}/tasks/${task.key}`, { token: user.token })).status).toBe(404)
  })
})
