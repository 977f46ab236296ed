// Every write endpoint against the payload table of SPEC.md (Events): each request publishes
// exactly the events listed for it, and nothing when the table says nothing (company creation,
// members, API keys, the user's own profile, unchanged updates, heartbeats, refused writes).
//
// The rows run in order and build one company's story: later rows use the ids earlier rows
// made. Events are captured where write() hands them to the bus, i.e. after COMMIT; comparing
// distinct events means a repeated signal for the same entity within one write is tolerated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CompanyEvent, EventBus } from '../../src/server/events/bus.ts'
import { call, createUser, type TestApp, testApp, type TestUser, uniqueEmail } from '../helpers.ts'

let t: TestApp
let owner: TestUser
const published: { companyId: string; event: CompanyEvent }[] = []

beforeAll(async () => {
  t = await testApp()
  owner = await createUser(t.ctx, 'Table Owner')
  const bus: EventBus = t.ctx.bus
  t.ctx.bus = {
    ...bus,
    publish(companyId, event) {
      published.push({ companyId, event })
      bus.publish(companyId, event)
    },
  }
})
afterAll(async () => t?.close())

/** Ids made along the way. */
const w: Record<string, string> = {}
let refreshToken = ''

type Answer = { status: number; body: any }
const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, token = owner.token) =>
  call(t.app, method, path.startsWith('/api/') ? path : `/api/companies/${w.company}${path}`, { token, body })

const ev = (type: string, id: string | null, extra: Record<string, string> = {}): CompanyEvent => ({ type, id, ...extra })
const runUpdated = (run: string, agent: string, status: string) => ev('run.updated', w[run], { agent_id: w[agent], status })
const runCreated = (run: string, agent: string) => ev('run.created', w[run], { agent_id: w[agent] })

interface Row {
  name: string
  act: () => Promise<Answer>
  status: number
  /** Keeps ids from the answer for later rows. */
  keep?: (body: any) => void | Promise<void>
  /** The events of the company, evaluated after the request. */
  events: () => CompanyEvent[]
}

async function pendingApprovalFor(agent: string): Promise<string> {
  const list = await api('GET', '/approvals?status=pending')
  return list.body.find((a: any) => a.agent_id === w[agent]).id
}

const rows: Row[] = [
  // Companies and members
  {
    name: 'POST /api/companies publishes nothing',
    act: () => api('POST', '/api/companies', { name: 'Table Co', task_prefix: 'TBL' }),
    status: 201,
    keep: (b) => void (w.company = b.id),
    events: () => [],
  },
  {
    name: 'PATCH company with a change: company.updated',
    act: () => api('PATCH', `/api/companies/${w.company}`, { name: 'Table Co Renamed', monthly_budget_cents: 5000 }),
    status: 200,
    events: () => [ev('company.updated', w.company)],
  },
  {
    name: 'PATCH company without a change publishes nothing',
    act: () => api('PATCH', `/api/companies/${w.company}`, { name: 'Table Co Renamed', task_prefix: 'TBL' }),
    status: 200,
    events: () => [],
  },

  // Agents
  {
    name: 'hire: agent.created',
    act: () => api('POST', '/agents', { name: 'Ada' }),
    status: 201,
    keep: (b) => void (w.ada = b.id),
    events: () => [ev('agent.created', w.ada)],
  },
  {
    name: 'hire a report: agent.created',
    act: () => api('POST', '/agents', { name: 'Rex', reports_to_id: w.ada }),
    status: 201,
    keep: (b) => void (w.rex = b.id),
    events: () => [ev('agent.created', w.rex)],
  },
  {
    name: 'hire needing approval: agent.created and approval.created with id null',
    act: () => api('POST', '/agents', { name: 'Pia', request_approval: true }),
    status: 201,
    keep: (b) => void (w.pia = b.id),
    events: () => [ev('agent.created', w.pia), ev('approval.created', null)],
  },
  {
    name: 'PATCH agent with a change: agent.updated',
    act: () => api('PATCH', `/agents/${w.ada}`, { title: 'Lead' }),
    status: 200,
    events: () => [ev('agent.updated', w.ada)],
  },
  {
    name: 'PATCH agent without a change publishes nothing',
    act: () => api('PATCH', `/agents/${w.ada}`, { title: 'Lead' }),
    status: 200,
    events: () => [],
  },
  { name: 'pause: agent.updated', act: () => api('POST', `/agents/${w.ada}/pause`), status: 200, events: () => [ev('agent.updated', w.ada)] },
  { name: 'pause an already paused agent publishes nothing', act: () => api('POST', `/agents/${w.ada}/pause`), status: 200, events: () => [] },
  { name: 'resume: agent.updated', act: () => api('POST', `/agents/${w.ada}/resume`), status: 200, events: () => [ev('agent.updated', w.ada)] },
  { name: 'a refused resume (400) publishes nothing', act: () => api('POST', `/agents/${w.ada}/resume`), status: 400, events: () => [] },

  // Goals and projects
  {
    name: 'POST goal: goal.created',
    act: () => api('POST', '/goals', { title: 'Ship it' }),
    status: 201,
    keep: (b) => void (w.goal = b.id),
    events: () => [ev('goal.created', w.goal)],
  },
  { name: 'PATCH goal: goal.updated', act: () => api('PATCH', `/goals/${w.goal}`, { status: 'achieved' }), status: 200, events: () => [ev('goal.updated', w.goal)] },
  { name: 'DELETE goal: goal.deleted', act: () => api('DELETE', `/goals/${w.goal}`), status: 204, events: () => [ev('goal.deleted', w.goal)] },
  {
    name: 'POST project: project.created',
    act: () => api('POST', '/projects', { name: 'Platform' }),
    status: 201,
    keep: (b) => void (w.project = b.id),
    events: () => [ev('project.created', w.project)],
  },
  { name: 'PATCH project: project.updated', act: () => api('PATCH', `/projects/${w.project}`, { status: 'paused' }), status: 200, events: () => [ev('project.updated', w.project)] },

  // Tasks and comments
  {
    name: 'POST task without assignee: task.created',
    act: () => api('POST', '/tasks', { title: 'Write docs' }),
    status: 201,
    keep: (b) => void (w.t1 = b.id),
    events: () => [ev('task.created', w.t1)],
  },
  {
    name: 'POST task for an available agent: task.created and run.created',
    act: () => api('POST', '/tasks', { title: 'Build it', assignee_agent_id: w.ada }),
    status: 201,
    keep: async (b) => {
      w.t2 = b.id
      w.r1 = (await api('GET', `/runs?task_id=${b.id}`)).body[0].id
    },
    events: () => [ev('task.created', w.t2), runCreated('r1', 'ada')],
  },
  {
    name: 'POST task in backlog with an assignee: task.created only',
    act: () => api('POST', '/tasks', { title: 'Someday', status: 'backlog', assignee_agent_id: w.ada }),
    status: 201,
    keep: (b) => void (w.t3 = b.id),
    events: () => [ev('task.created', w.t3)],
  },
  { name: 'PATCH task with a change: task.updated', act: () => api('PATCH', `/tasks/${w.t1}`, { title: 'Write the docs' }), status: 200, events: () => [ev('task.updated', w.t1)] },
  { name: 'PATCH task without a change publishes nothing', act: () => api('PATCH', `/tasks/${w.t1}`, { title: 'Write the docs' }), status: 200, events: () => [] },
  {
    name: 'PATCH task reassigned to an available agent: task.updated and run.created',
    act: () => api('PATCH', `/tasks/${w.t1}`, { assignee_agent_id: w.ada }),
    status: 200,
    keep: async () => void (w.r2 = (await api('GET', `/runs?task_id=${w.t1}`)).body[0].id),
    events: () => [ev('task.updated', w.t1), runCreated('r2', 'ada')],
  },
  {
    name: 'a refused task update (404 assignee) publishes nothing',
    act: () => api('PATCH', `/tasks/${w.t1}`, { title: 'Never', assignee_agent_id: '00000000-0000-4000-8000-000000000000' }),
    status: 404,
    events: () => [],
  },
  {
    name: 'POST comment: task.commented with the task id',
    act: () => api('POST', `/tasks/${w.t1}/comments`, { body: 'First!' }),
    status: 201,
    keep: (b) => void (w.comment = b.id),
    events: () => [ev('task.commented', w.t1)],
  },
  { name: 'PATCH comment: task.commented', act: () => api('PATCH', `/tasks/${w.t1}/comments/${w.comment}`, { body: 'Edited' }), status: 200, events: () => [ev('task.commented', w.t1)] },
  { name: 'DELETE comment: task.commented', act: () => api('DELETE', `/tasks/${w.t1}/comments/${w.comment}`), status: 204, events: () => [ev('task.commented', w.t1)] },

  // Runs
  {
    name: 'wake: run.created',
    act: () => api('POST', `/agents/${w.ada}/wake`, { reason: 'check in' }),
    status: 201,
    keep: (b) => void (w.r3 = b.id),
    events: () => [runCreated('r3', 'ada')],
  },
  {
    name: 'wake again reuses the identical queued run: run.created with its id',
    act: () => api('POST', `/agents/${w.ada}/wake`, {}),
    status: 201,
    keep: (b) => expect(b.id).toBe(w.r3),
    events: () => [runCreated('r3', 'ada')],
  },
  { name: 'waking a dormant agent (400) publishes nothing', act: () => api('POST', `/agents/${w.pia}/wake`, {}), status: 400, events: () => [] },
  {
    name: 'claim: run.updated running, agent.updated, and task.updated for the todo task it starts',
    act: () => api('POST', '/runs/claim', { runner_id: 'runner-1' }),
    status: 200,
    keep: (b) => expect(b.run.id).toBe(w.r1),
    events: () => [runUpdated('r1', 'ada', 'running'), ev('agent.updated', w.ada), ev('task.updated', w.t2)],
  },
  { name: 'heartbeat publishes nothing', act: () => api('POST', `/runs/${w.r1}/heartbeat`, { runner_id: 'runner-1' }), status: 200, events: () => [] },
  {
    name: 'report progress: run.updated',
    act: () => api('PATCH', `/runs/${w.r1}`, { runner_id: 'runner-1', status: 'running', tokens_in: 10, transcript: [{ text: 'working' }] }),
    status: 200,
    events: () => [runUpdated('r1', 'ada', 'running')],
  },
  {
    name: 'report without a status change still publishes run.updated',
    act: () => api('PATCH', `/runs/${w.r1}`, { runner_id: 'runner-1', tokens_out: 5 }),
    status: 200,
    events: () => [runUpdated('r1', 'ada', 'running')],
  },
  {
    name: 'report success: run.updated and agent.updated',
    act: () => api('PATCH', `/runs/${w.r1}`, { runner_id: 'runner-1', status: 'succeeded', summary: 'done' }),
    status: 200,
    events: () => [runUpdated('r1', 'ada', 'succeeded'), ev('agent.updated', w.ada)],
  },
  { name: 'a report on a finished run (400) publishes nothing', act: () => api('PATCH', `/runs/${w.r1}`, { runner_id: 'runner-1', status: 'failed' }), status: 400, events: () => [] },
  {
    name: 'cancel a queued run: run.updated and agent.updated',
    act: () => api('POST', `/runs/${w.r2}/cancel`),
    status: 200,
    events: () => [runUpdated('r2', 'ada', 'cancelled'), ev('agent.updated', w.ada)],
  },
  {
    name: 'claim the next run',
    act: () => api('POST', '/runs/claim', { runner_id: 'runner-1', agent_ids: [w.ada] }),
    status: 200,
    keep: (b) => expect(b.run.id).toBe(w.r3),
    events: () => [runUpdated('r3', 'ada', 'running'), ev('agent.updated', w.ada)],
  },
  {
    name: 'expire-stale with a lapsed lease: run.updated failed, agent.updated, and run.created of the run queued again',
    act: async () => {
      await t.ctx.db.query("UPDATE runs SET heartbeat_at = now() - interval '1 day', started_at = now() - interval '1 day' WHERE id = $1", [w.r3])
      const answer = await api('POST', '/runs/expire-stale')
      // The lost run is queued again (runs/redo-lost.ts).
      w.r3redo = (await t.ctx.db.one<{ id: string }>('SELECT id FROM runs WHERE redo_of = $1', [w.r3]))!.id
      return answer
    },
    status: 200,
    keep: (b) => expect(b.expired).toEqual([w.r3]),
    events: () => [runUpdated('r3', 'ada', 'failed'), ev('agent.updated', w.ada), ev('run.created', w.r3redo, { agent_id: w.ada })],
  },

  { name: 'a claim with nothing to run (204) publishes nothing', act: () => api('POST', '/runs/claim', { runner_id: 'runner-1', agent_ids: [w.rex] }), status: 204, events: () => [] },
  { name: 'expire-stale with nothing stale publishes nothing', act: () => api('POST', '/runs/expire-stale'), status: 200, events: () => [] },

  // Budget and approvals
  {
    name: 'hire with a budget: agent.created',
    act: () => api('POST', '/agents', { name: 'Bud', monthly_budget_cents: 5 }),
    status: 201,
    keep: (b) => void (w.bud = b.id),
    events: () => [ev('agent.created', w.bud)],
  },
  { name: 'wake the budgeted agent: run.created', act: () => api('POST', `/agents/${w.bud}/wake`, {}), status: 201, keep: (b) => void (w.r4 = b.id), events: () => [runCreated('r4', 'bud')] },
  {
    name: 'claim for the budgeted agent',
    act: () => api('POST', '/runs/claim', { runner_id: 'runner-2', agent_ids: [w.bud] }),
    status: 200,
    events: () => [runUpdated('r4', 'bud', 'running'), ev('agent.updated', w.bud)],
  },
  {
    name: 'a finished run reaching the budget: run.updated, agent.updated and approval.created with id null',
    act: () => api('PATCH', `/runs/${w.r4}`, { runner_id: 'runner-2', status: 'succeeded', cost_cents: 5 }),
    status: 200,
    keep: async () => void (w.budgetApproval = await pendingApprovalFor('bud')),
    events: () => [runUpdated('r4', 'bud', 'succeeded'), ev('agent.updated', w.bud), ev('approval.created', null)],
  },
  {
    name: 'approve the budget override: approval.updated and agent.updated',
    act: () => api('POST', `/approvals/${w.budgetApproval}/approve`, { new_budget_cents: 100 }),
    status: 200,
    events: () => [ev('approval.updated', w.budgetApproval), ev('agent.updated', w.bud)],
  },
  { name: 'deciding again (400) publishes nothing', act: () => api('POST', `/approvals/${w.budgetApproval}/reject`, {}), status: 400, events: () => [] },
  {
    name: 'approve a hire: approval.updated and agent.updated',
    act: async () => api('POST', `/approvals/${(w.hireApproval = await pendingApprovalFor('pia'))}/approve`, {}),
    status: 200,
    events: () => [ev('approval.updated', w.hireApproval), ev('agent.updated', w.pia)],
  },
  {
    name: 'hire needing approval (to reject)',
    act: () => api('POST', '/agents', { name: 'Quin', request_approval: true }),
    status: 201,
    keep: (b) => void (w.quin = b.id),
    events: () => [ev('agent.created', w.quin), ev('approval.created', null)],
  },
  {
    name: 'reject a hire: approval.updated and agent.updated',
    act: async () => api('POST', `/approvals/${(w.rejectApproval = await pendingApprovalFor('quin'))}/reject`, { decision_note: 'no' }),
    status: 200,
    events: () => [ev('approval.updated', w.rejectApproval), ev('agent.updated', w.quin)],
  },

  // Routines
  {
    name: 'POST routine: routine.created',
    act: () => api('POST', '/routines', { agent_id: w.rex, title: 'Daily triage', cron: '0 9 * * *' }),
    status: 201,
    keep: (b) => void (w.routine = b.id),
    events: () => [ev('routine.created', w.routine)],
  },
  { name: 'PATCH routine with a change: routine.updated', act: () => api('PATCH', `/routines/${w.routine}`, { cron: '0 10 * * *' }), status: 200, events: () => [ev('routine.updated', w.routine)] },
  { name: 'PATCH routine without a change publishes nothing', act: () => api('PATCH', `/routines/${w.routine}`, { cron: '0 10 * * *' }), status: 200, events: () => [] },
  {
    name: 'trigger routine: routine.updated, task.created and run.created',
    act: () => api('POST', `/routines/${w.routine}/trigger`),
    status: 201,
    keep: (b) => {
      w.routineTask = b.task.id
      w.r6 = b.run.id
    },
    events: () => [ev('routine.updated', w.routine), ev('task.created', w.routineTask), runCreated('r6', 'rex')],
  },
  { name: 'DELETE routine: routine.deleted', act: () => api('DELETE', `/routines/${w.routine}`), status: 204, events: () => [ev('routine.deleted', w.routine)] },
  {
    name: 'triggering a routine of a dormant agent (400) publishes nothing',
    act: async () => {
      const routine = await api('POST', '/routines', { agent_id: w.pia, title: 'Blocked', cron: '* * * * *' })
      published.length = 0
      await api('POST', `/agents/${w.pia}/pause`)
      published.length = 0
      return api('POST', `/routines/${routine.body.id}/trigger`)
    },
    status: 400,
    events: () => [],
  },

  // Terminate and delete
  { name: 'wake before terminating: run.created', act: () => api('POST', `/agents/${w.ada}/wake`, {}), status: 201, keep: (b) => void (w.r5 = b.id), events: () => [runCreated('r5', 'ada')] },
  {
    name: 'terminate: agent.updated for it and its moved report, run.updated for its cancelled run',
    act: () => api('POST', `/agents/${w.ada}/terminate`),
    status: 200,
    events: () => [ev('agent.updated', w.ada), ev('agent.updated', w.rex), runUpdated('r5', 'ada', 'cancelled')],
  },
  { name: 'DELETE task: task.deleted', act: () => api('DELETE', `/tasks/${w.t1}`), status: 204, events: () => [ev('task.deleted', w.t1)] },

  // Accounts, keys and profile: never anything
  { name: 'PATCH /api/me publishes nothing', act: () => api('PATCH', '/api/me', { name: 'Renamed Owner' }), status: 200, events: () => [] },
  { name: 'PATCH /api/me/preferences publishes nothing', act: () => api('PATCH', '/api/me/preferences', { theme: 'dark' }), status: 200, events: () => [] },
  {
    name: 'POST /api/me/api-keys publishes nothing',
    act: () => api('POST', '/api/me/api-keys', { name: 'ci' }),
    status: 201,
    keep: (b) => void (w.key = b.id),
    events: () => [],
  },
  { name: 'DELETE /api/me/api-keys publishes nothing', act: () => api('DELETE', `/api/me/api-keys/${w.key}`), status: 204, events: () => [] },
  {
    name: 'POST /api/register publishes nothing',
    act: () => api('POST', '/api/register', { email: (w.email = uniqueEmail('table')), password: 'password123', name: 'Newcomer', company: 'Acme' }),
    status: 201,
    events: () => [],
  },
  {
    name: 'POST /api/login publishes nothing',
    act: () => api('POST', '/api/login', { email: w.email, password: 'password123' }),
    status: 200,
    keep: (b) => void (refreshToken = b.refresh_token),
    events: () => [],
  },
  { name: 'POST /api/refresh publishes nothing', act: () => api('POST', '/api/refresh', { refresh_token: refreshToken }), status: 200, events: () => [] },
  { name: 'POST /api/logout publishes nothing', act: () => api('POST', '/api/logout'), status: 204, events: () => [] },
]

const key = (e: { companyId: string; event: CompanyEvent }) => JSON.stringify([e.companyId, Object.entries(e.event).sort()])

describe('each write publishes exactly the events of the payload table', () => {
  for (const row of rows) {
    it(row.name, async () => {
      published.length = 0
      const answer = await row.act()
      expect(answer.status, JSON.stringify(answer.body)).toBe(row.status)
      await row.keep?.(answer.body)
      const got = [...new Set(published.map(key))].sort()
      const expected = [...new Set(row.events().map((event) => key({ companyId: w.company, event })))].sort()
      expect(got).toEqual(expected)
      // All values are strings or null (SPEC.md Events, Payload).
      for (const { event } of published) {
        for (const value of Object.values(event)) expect(value === null || typeof value === 'string').toBe(true)
      }
    })
  }
})
