// A company exported and imported again is the same company under new ids: settings, org
// chart with adapter settings, projects, goals, routines, tasks with their keys and comments.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createCompany, createTask, hireAgent } from '../fixtures.ts'
import { call, createUser, type TestApp, testApp, type TestUser } from '../helpers.ts'

let t: TestApp
let owner: TestUser
beforeAll(async () => {
  t = await testApp()
  owner = await createUser(t.ctx, 'Exporter')
})
afterAll(async () => {
  await t?.close()
})

/** The document without what an import changes: ids (replaced by the order of records) and the export time. */
function comparable(doc: any) {
  const refs = new Map<string, string>()
  for (const key of ['agents', 'projects', 'goals', 'routines', 'tasks']) {
    for (const [i, r] of (doc[key] ?? []).entries()) refs.set(r.id, `${key}#${i}`)
  }
  const strip = (r: any): any => {
    const out: any = {}
    for (const [k, v] of Object.entries(r)) {
      if (k === 'id' || k === 'created_at') continue
      out[k] = k === 'comments' ? (v as any[]).map(strip) : typeof v === 'string' && refs.has(v) ? refs.get(v) : v
    }
    return out
  }
  return {
    company: doc.company,
    ...Object.fromEntries(['agents', 'projects', 'goals', 'routines', 'tasks'].map((k) => [k, doc[k].map(strip)])),
  }
}

it('export then import gives an equal company with new ids, kept task keys and an audit event per record', async () => {
  const c = await createCompany(t.app, owner.token, { name: 'Original', task_prefix: 'ORG', mission: 'Make things', monthly_budget_cents: 5000 })
  const base = `/api/companies/${c.id}`
  const boss = await hireAgent(t.app, owner.token, c.id, { name: 'Boss', adapter: 'agent_cli_1', adapter_config: { model: 'big', max_turns: 7 } })
  const dev = await hireAgent(t.app, owner.token, c.id, { name: 'Dev', adapter: 'simulated', reports_to_id: boss.id, heartbeat_cron: '0 9 * * *' })
  const project = (await call(t.app, 'POST', `${base}/projects`, { token: owner.token, body: { name: 'Site', repository: 'git@example.com:site' } })).body
  const goal = (await call(t.app, 'POST', `${base}/goals`, { token: owner.token, body: { title: 'Grow', owner_agent_id: boss.id } })).body
  const sub = (await call(t.app, 'POST', `${base}/goals`, { token: owner.token, body: { title: 'Sub', parent_id: goal.id } })).body
  expect(sub.id).toBeTruthy()
  const routine = await call(t.app, 'POST', `${base}/routines`, { token: owner.token, body: { agent_id: dev.id, title: 'Daily', cron: '0 8 * * *', project_id: project.id } })
  expect(routine.status).toBe(201)
  const parent = await createTask(t.app, owner.token, c.id, { title: 'Parent', project_id: project.id, goal_id: goal.id, priority: 'high' })
  await createTask(t.app, owner.token, c.id, { title: 'Child', parent_id: parent.id, assignee_agent_id: dev.id })
  expect((await call(t.app, 'DELETE', `${base}/tasks/${(await createTask(t.app, owner.token, c.id, { title: 'Gone' })).id}`, { token: owner.token })).status).toBe(204)
  await createTask(t.app, owner.token, c.id, { title: 'Fourth', status: 'done' })
  expect((await call(t.app, 'POST', `${base}/tasks/${parent.id}/comments`, { token: owner.token, body: { body: 'First thoughts', kind: 'plan' } })).status).toBe(201)

  const exported = await call(t.app, 'GET', `${base}/export`, { token: owner.token })
  expect(exported.status).toBe(200)
  const doc = exported.body
  expect(doc).toMatchObject({ format: 'shopfloor.company', version: 1, company: { name: 'Original', task_prefix: 'ORG', mission: 'Make things', monthly_budget_cents: 5000 } })
  expect(doc.agents.map((a: any) => a.name)).toEqual(['Boss', 'Dev'])
  expect(doc.agents[0].adapter_config).toEqual({ model: 'big', max_turns: 7 })
  // Spend settings travel; the breaker's bookkeeping does not.
  expect(doc.agents[0]).toMatchObject({ max_run_cost_cents: 0, max_runs_per_hour: 0, pause_on_repeat: false, heartbeat_skip_idle: false })
  expect(doc.agents[0]).not.toHaveProperty('breaker_reset_at')
  expect(doc.agents[1].reports_to_id).toBe(boss.id)
  expect(doc.tasks.map((x: any) => x.number)).toEqual([1, 2, 4])
  expect(doc.tasks[0].comments).toHaveLength(1)
  expect(doc.tasks[0].comments[0]).toMatchObject({ body: 'First thoughts', kind: 'plan' })
  expect(doc.tasks[0].comments[0]).not.toHaveProperty('task_id')
  // JSON as every answer: timestamps with six digits of fraction, as the API writes them.
  expect(exported.headers['content-type']).toMatch(/^application\/json/)
  for (const stamp of [doc.tasks[0].created_at, doc.agents[0].created_at, doc.tasks[0].comments[0].created_at]) {
    expect(stamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/)
  }
  // Nothing of this installation: no runs, no people, no company id.
  const text = JSON.stringify(doc)
  expect(text).not.toContain(c.id)
  expect(text).not.toContain(owner.id)
  expect(doc.runs).toBeUndefined()
  expect(doc.tasks[1]).not.toHaveProperty('created_by_user_id')

  const other = await createUser(t.ctx, 'Importer')
  const imported = await call(t.app, 'POST', '/api/companies/import', { token: other.token, body: doc })
  expect(imported.status, JSON.stringify(imported.body)).toBe(201)
  expect(imported.body).toMatchObject({ name: 'Original', task_prefix: 'ORG', role: 'owner' })
  const copy = `/api/companies/${imported.body.id}`
  const again = await call(t.app, 'GET', `${copy}/export`, { token: other.token })
  expect(comparable(again.body)).toEqual(comparable(doc))
  // New ids everywhere.
  for (const key of ['agents', 'projects', 'goals', 'routines', 'tasks']) {
    const before = new Set(doc[key].map((r: any) => r.id))
    for (const r of again.body[key]) expect(before.has(r.id)).toBe(false)
  }
  // Keys are kept and numbering goes on after the highest.
  const task = await call(t.app, 'GET', `${copy}/tasks/ORG-4`, { token: other.token })
  expect(task.body.title).toBe('Fourth')
  expect((await createTask(t.app, other.token, imported.body.id, { title: 'Next' })).key).toBe('ORG-5')
  // A comment arrives as it was written, not as changed since (the web app would mark it edited).
  const [comment] = (await call(t.app, 'GET', `${copy}/tasks/ORG-1/comments`, { token: other.token })).body
  expect(comment).toMatchObject({ body: 'First thoughts', created_at: doc.tasks[0].comments[0].created_at, updated_at: doc.tasks[0].comments[0].created_at })
  // Written by the import: its author is the person the log names for it, not nobody ("Someone").
  expect(comment.author_user_id).toBe(other.id)
  const logged = await t.ctx.db.one<{ actor_user_id: string }>(`SELECT actor_user_id FROM audit_events WHERE entity_id = $1`, [comment.id])
  expect(logged!.actor_user_id).toBe(comment.author_user_id)
  // One `created` audit event per record: company, 2 agents, project, 2 goals, routine, 3 tasks, 1 comment.
  const audit = await t.ctx.db.many(`SELECT entity_type, count(*)::int AS n FROM audit_events WHERE company_id = $1 AND verb = 'created' GROUP BY entity_type ORDER BY entity_type`, [imported.body.id])
  expect(Object.fromEntries(audit.map((a) => [a.entity_type, a.n]))).toEqual({ agent: 2, comment: 1, company: 1, goal: 2, project: 1, routine: 1, task: 4 })
  // Each says what the record arrived with, as a record made through the API does, references
  // within a table (written after the rows) included.
  const made = async (entity: string, label: string) =>
    (await t.ctx.db.one<{ changes: Record<string, [unknown, unknown]> }>(
      `SELECT changes FROM audit_events WHERE company_id = $1 AND verb = 'created' AND entity_type = $2 AND label = $3`, [imported.body.id, entity, label]))!.changes
  const ids = (key: string, name: string) => again.body[key].find((r: any) => (r.name ?? r.title) === name).id
  expect(await made('agent', 'Dev')).toMatchObject({ name: [null, 'Dev'], adapter: [null, 'simulated'], reports_to_id: [null, ids('agents', 'Boss')], heartbeat_cron: [null, '0 9 * * *'] })
  expect(await made('goal', 'Sub')).toMatchObject({ title: [null, 'Sub'], parent_id: [null, ids('goals', 'Grow')] })
  expect(await made('project', 'Site')).toMatchObject({ name: [null, 'Site'], repository: [null, 'git@example.com:site'] })
  expect(await made('routine', 'Daily')).toMatchObject({ cron: [null, '0 8 * * *'], agent_id: [null, ids('agents', 'Dev')] })
  expect(await made('task', 'ORG-2 Child')).toMatchObject({ title: [null, 'Child'], parent_id: [null, ids('tasks', 'Parent')], assignee_agent_id: [null, ids('agents', 'Dev')] })
  expect(await made('comment', 'ORG-1')).toEqual({ body: [null, 'First thoughts'], kind: [null, 'plan'] })
})

it("counts an imported company's tasks afresh once they are written: status, assignee, goal and day totals as its tasks say", async () => {
  const doc = {
    format: 'shopfloor.company', version: 1, company: { name: 'Counted', task_prefix: 'CNT' },
    agents: [{ id: 'ann', name: 'Ann' }], projects: [], routines: [], goals: [{ id: 'g', title: 'Ship' }],
    tasks: Array.from({ length: 30 }, (_, i) => ({
      id: `t${i}`, number: i + 1, title: `Task ${i + 1}`, status: ['todo', 'done', 'in_progress'][i % 3],
      assignee_agent_id: i % 2 ? 'ann' : null, goal_id: i < 12 ? 'g' : null, comments: [],
    })),
  }
  const imported = await call(t.app, 'POST', '/api/companies/import', { token: owner.token, body: doc })
  expect(imported.status, JSON.stringify(imported.body)).toBe(201)
  const base = `/api/companies/${imported.body.id}`
  const read = async () => {
    const dashboard = (await call(t.app, 'GET', `${base}/dashboard?days=7`, { token: owner.token })).body
    const agents = (await call(t.app, 'GET', `${base}/agents`, { token: owner.token })).body
    const goals = (await call(t.app, 'GET', `${base}/goals`, { token: owner.token })).body
    return {
      byStatus: dashboard.tasks_by_status, createdToday: dashboard.series.at(-1).tasks_created,
      open: agents[0].open_tasks, goal: [goals[0].tasks_done, goals[0].tasks_total],
    }
  }
  // Ann holds the odd tasks: 15, of which 5 are done.
  expect(await read()).toMatchObject({
    byStatus: { todo: 10, done: 10, in_progress: 10, backlog: 0 }, createdToday: 30, open: 10, goal: [4, 12],
  })
  // Later writes are counted one by one as ever.
  const ann = (await call(t.app, 'GET', `${base}/agents`, { token: owner.token })).body[0].id
  await createTask(t.app, owner.token, imported.body.id, { title: 'After', status: 'backlog', assignee_agent_id: ann, goal_id: (await call(t.app, 'GET', `${base}/goals`, { token: owner.token })).body[0].id })
  expect((await call(t.app, 'PATCH', `${base}/tasks/CNT-1`, { token: owner.token, body: { status: 'done' } })).status).toBe(200)
  expect(await read()).toMatchObject({
    byStatus: { todo: 9, done: 11, in_progress: 10, backlog: 1 }, createdToday: 31, open: 11, goal: [5, 13],
  })
})

it('starts the imported open tasks as created ones start: an assignment run for each whose assignee is available', async () => {
  const doc = {
    format: 'shopfloor.company', version: 1, company: { name: 'Starting', task_prefix: 'GO' },
    agents: [{ id: 'i', name: 'Ida', status: 'idle' }, { id: 'p', name: 'Pat', status: 'paused' }, { id: 'r', name: 'Ray', status: 'running' }],
    tasks: [
      { id: '1', number: 1, title: 'Todo', status: 'todo', assignee_agent_id: 'i' },
      { id: '2', number: 2, title: 'Going', status: 'in_progress', assignee_agent_id: 'r' },
      { id: '3', number: 3, title: 'Later', status: 'backlog', assignee_agent_id: 'i' },
      { id: '4', number: 4, title: 'Finished', status: 'done', assignee_agent_id: 'i' },
      { id: '5', number: 5, title: 'Paused', status: 'todo', assignee_agent_id: 'p' },
      { id: '6', number: 6, title: 'Nobody', status: 'todo' },
    ],
  }
  const imported = await call(t.app, 'POST', '/api/companies/import', { token: owner.token, body: doc })
  expect(imported.status, JSON.stringify(imported.body)).toBe(201)
  const company = imported.body.id
  const runs = await t.ctx.db.many<{ number: number; agent: string; trigger: string; status: string }>(
    `SELECT t.number, a.name AS agent, r.trigger, r.status FROM runs r JOIN tasks t ON t.id = r.task_id JOIN agents a ON a.id = r.agent_id
      WHERE r.company_id = $1 ORDER BY t.number`, [company])
  expect(runs).toEqual([
    { number: 1, agent: 'Ida', trigger: 'assignment', status: 'queued' },
    { number: 2, agent: 'Ray', trigger: 'assignment', status: 'queued' }, // arrived idle
  ])
  const queued = await t.ctx.db.many<{ label: string; actor_name: string }>(
    `SELECT label, actor_name FROM audit_events WHERE company_id = $1 AND verb = 'queued' AND entity_type = 'run' ORDER BY label`, [company])
  expect(queued).toEqual([{ label: 'Ida (assignment)', actor_name: 'Exporter' }, { label: 'Ray (assignment)', actor_name: 'Exporter' }])
  // Counted once in the runs' totals, as the dashboard reads them.
  const totals = await t.ctx.db.one<{ runs: number }>('SELECT coalesce(sum(runs), 0)::int AS runs FROM run_totals WHERE company_id = $1', [company])
  expect(totals!.runs).toBe(2)
  // A runner claims them.
  const claimed = await call(t.app, 'POST', `/api/companies/${company}/runs/claim`, { token: owner.token, body: { runner_id: 'r1' } })
  expect(claimed.status).toBe(200)
})

it('name and task_prefix may be overridden; a member may export; strangers may not', async () => {
  const c = await createCompany(t.app, owner.token, { name: 'Small' })
  const doc = (await call(t.app, 'GET', `/api/companies/${c.id}/export`, { token: owner.token })).body
  const r = await call(t.app, 'POST', '/api/companies/import', { token: owner.token, body: { ...doc, name: 'Copy', task_prefix: 'CPY' } })
  expect(r.status).toBe(201)
  expect(r.body).toMatchObject({ name: 'Copy', task_prefix: 'CPY' })
  const stranger = await createUser(t.ctx, 'Stranger')
  expect((await call(t.app, 'GET', `/api/companies/${c.id}/export`, { token: stranger.token })).status).toBe(404)
  expect((await call(t.app, 'POST', '/api/companies/import', { body: doc })).status).toBe(401)
})

it("gives an agent the document does not give a role or adapter what a hire gives; an update's longer title travels", async () => {
  const body = {
    format: 'shopfloor.company', version: 1, company: { name: 'Defaults', task_prefix: 'DEF' },
    agents: [{ id: 'a', name: 'Plain' }, { id: 'b', name: 'Roleless', role: null, title: 'T'.repeat(300) }],
  }
  const r = await call(t.app, 'POST', '/api/companies/import', { token: owner.token, body })
  expect(r.status, JSON.stringify(r.body)).toBe(201)
  const agents = (await call(t.app, 'GET', `/api/companies/${r.body.id}/agents`, { token: owner.token })).body
  expect(agents.find((a: { name: string }) => a.name === 'Plain')).toMatchObject({ role: 'engineer', adapter: 'agent_cli_1' })
  expect(agents.find((a: { name: string }) => a.name === 'Roleless')).toMatchObject({ role: null, adapter: 'agent_cli_1', title: 'T'.repeat(300) })
})

it('refuses a bad document with 422 naming the problem, and keeps nothing of it', async () => {
  const before = await t.ctx.db.one<{ n: number }>('SELECT count(*)::int AS n FROM companies')
  const good = { format: 'shopfloor.company', version: 1, company: { name: 'Bad' } }
  const cases: [unknown, RegExp][] = [
    [{ ...good, version: 2 }, /version/],
    [{ ...good, format: 'other' }, /format/],
    [{ ...good, agents: [{ id: 'a', name: 'A', reports_to_id: 'nobody' }] }, /^agents\.0\.reports_to_id: No record of agents in the document has the id "nobody"/],
    [{ ...good, agents: [{ id: 'a', name: 'A' }, { id: 'a', name: 'B' }] }, /^agents\.1\.id: Another record/],
    [{ ...good, agents: [{ id: 'a', name: 'A', status: 'sleeping' }] }, /^agents\.0: The record was refused/],
    [{ ...good, agents: [{ id: 'a', name: 'A', adapter: 'simulated', adapter_config: { model: 'x' } }] }, /^agents\.0\.adapter_config\.model: Not a setting/],
    [{ ...good, agents: [{ id: 'a', name: 'A', max_runs_per_hour: -1 }] }, /^agents\.0\.max_runs_per_hour: Input should be greater than or equal to 0/],
    [{ ...good, agents: [{ id: 'a', name: 'A', pause_on_repeat: 'yes' }] }, /^agents\.0\.pause_on_repeat: Input should be a valid boolean/],
    [{ ...good, agents: [{ id: 'a' }] }, /^agents\.0\.name: Field required/],
    // Each field as the API's update takes it: what the API refuses, the import refuses.
    [{ ...good, agents: [{ id: 'a', name: '' }] }, /^agents\.0\.name: String should have at least 1 character/],
    [{ ...good, agents: [{ id: 'a', name: 'A', capabilities: 'not-an-array' }] }, /^agents\.0\.capabilities: Input should be a valid array/],
    [{ ...good, agents: [{ id: 'a', name: 'A', adapter_config: 'abc' }] }, /^agents\.0\.adapter_config: Input should be a valid object/],
    [{ ...good, tasks: [{ id: 't', number: 1, title: 'x', due_date: 'soon' }] }, /^tasks\.0\.due_date: /],
    [{ ...good, tasks: [{ id: 't', number: 2147483647, title: 'x' }] }, /^tasks\.0\.number: Input should be less than or equal to 1000000000/],
    [{ ...good, tasks: [{ id: 't', number: 1, title: 'x', comments: [{ id: 'c', body: '' }] }] }, /^tasks\.0\.comments\.0\.body: String should have at least 1 character/],
    [{ ...good, tasks: [{ id: 't', number: 1, title: 'x', comments: [{ id: 'c', body: 'b', kind: 'system' }] }] }, /^tasks\.0\.comments\.0\.kind: /],
    // No cycles, which the API refuses on every other way in.
    [{ ...good, agents: [{ id: 'a', name: 'A', reports_to_id: 'b' }, { id: 'b', name: 'B', reports_to_id: 'a' }] }, /^agents\.0\.reports_to_id: Makes a cycle/],
    [{ ...good, goals: [{ id: 'g', title: 'G', parent_id: 'h' }, { id: 'h', title: 'H', parent_id: 'i' }, { id: 'i', title: 'I', parent_id: 'h' }] }, /^goals\.1\.parent_id: Makes a cycle/],
    [{ ...good, tasks: [{ id: 't', number: 1, title: 'x', parent_id: 't' }] }, /^tasks\.0\.parent_id: Makes a cycle/],
    [{ ...good, tasks: [{ id: 't', number: 1, title: 'x' }, { id: 'u', number: 1, title: 'y' }] }, /^tasks\.1: The record was refused/],
    // A section is written in one statement per set of columns: a refusal within one, after
    // sections already written, still names its record.
    [{
      ...good,
      agents: [{ id: 'a', name: 'A' }, { id: 'b', name: 'B', title: 'Second' }],
      tasks: [{ id: 't', number: 1, title: 'x' }, { id: 'u', number: 2, title: 'y', description: 'in the statement' }, { id: 'v', number: 2, title: 'z' }],
    }, /^tasks\.2: The record was refused/],
    [{ ...good, tasks: [{ id: 't', number: 1, title: 'x', comments: [{ id: 'c1', body: 'fine' }, { id: 'c2', body: 'odd', kind: 'shout' }] }] }, /^tasks\.0\.comments\.1\.kind: /],
  ]
  for (const [body, message] of cases) {
    const r = await call(t.app, 'POST', '/api/companies/import', { token: owner.token, body })
    expect(r.status, JSON.stringify(body)).toBe(422)
    expect(r.body.error.code).toBe('VALIDATION_ERROR')
    expect(`${r.body.error.message} ${JSON.stringify(r.body.error.details)}`).toMatch(message)
  }
  expect((await t.ctx.db.one<{ n: number }>('SELECT count(*)::int AS n FROM companies'))!.n).toBe(before!.n)
})

it('serves the ready templates, each importable as it is', async () => {
  const r = await call(t.app, 'GET', '/api/templates', { token: owner.token })
  expect(r.status).toBe(200)
  expect(r.body.map((x: any) => x.id)).toEqual(['software-studio', 'content-agency'])
  const studio = r.body[0]
  expect(studio).toMatchObject({ name: 'Software Studio', agents: 5 })
  for (const template of r.body) {
    const made = await call(t.app, 'POST', '/api/companies/import', { token: owner.token, body: template.document })
    expect(made.status, JSON.stringify(made.body)).toBe(201)
    // Listed as the document has them (it gives no creation times): the CEO first.
    for (const [key, path, field] of [['agents', 'agents', 'name'], ['goals', 'goals', 'title'], ['projects', 'projects', 'name'], ['routines', 'routines', 'title']] as const) {
      const listed = await call(t.app, 'GET', `/api/companies/${made.body.id}/${path}`, { token: owner.token })
      expect(listed.body.map((x: any) => x[field]), `${template.id} ${key}`).toEqual((template.document[key] ?? []).map((x: any) => x[field]))
    }
    // A template's agents get the safe limits a hire proposes: 20 runs an hour, paused on repeats.
    const agents = await call(t.app, 'GET', `/api/companies/${made.body.id}/agents`, { token: owner.token })
    for (const agent of agents.body) {
      expect(agent, `${template.id} ${agent.name}`).toMatchObject({ max_runs_per_hour: 20, pause_on_repeat: true, heartbeat_skip_idle: true })
    }
  }
  expect((await call(t.app, 'GET', '/api/templates')).status).toBe(401)
})
