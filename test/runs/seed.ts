// What the runs tests start from, made through the API: a company with its owner, agents and
// tasks. Only what no endpoint can do is written with SQL (an agent in `error`, back-dating).
import type { AppContext } from '../../src/server/context.ts'
import { createCompany, createTask, hireAgent } from '../fixtures.ts'
import { call, createUser, type TestApp, type TestUser } from '../helpers.ts'

export interface Seeded {
  user: TestUser
  companyId: string
  base: string
}

export async function seedCompany(t: TestApp, options: { budget?: number; prefix?: string } = {}): Promise<Seeded> {
  const user = await createUser(t.ctx, 'Runs Tester')
  const company = await createCompany(t.app, user.token, {
    name: 'Runs Co',
    monthly_budget_cents: options.budget ?? 0,
    ...(options.prefix ? { task_prefix: options.prefix } : {}),
  })
  return { user, companyId: company.id, base: `/api/companies/${company.id}` }
}

/** An agent hired through the API, then brought into `status` the way a person would. */
export async function seedAgent(
  t: TestApp,
  s: Seeded,
  fields: { name?: string; status?: string; budget?: number; adapter?: string; reportsTo?: string } = {},
): Promise<string> {
  const agent = await hireAgent(t.app, s.user.token, s.companyId, {
    ...(fields.name ? { name: fields.name } : {}),
    monthly_budget_cents: fields.budget ?? 0,
    adapter: fields.adapter ?? 'agent_cli_1',
    reports_to_id: fields.reportsTo ?? null,
    request_approval: fields.status === 'pending_approval',
  })
  const action = { paused: 'pause', terminated: 'terminate' }[fields.status ?? '']
  if (action) {
    const r = await call(t.app, 'POST', `${s.base}/agents/${agent.id}/${action}`, { token: s.user.token })
    if (r.status !== 200) throw new Error(`${action} answered ${r.status}`)
  }
  // Only a failed run puts an agent in `error`; tests that start there set it directly.
  if (fields.status === 'error') await t.ctx.db.query("UPDATE agents SET status = 'error' WHERE id = $1", [agent.id])
  return agent.id
}

export async function seedTask(
  t: TestApp,
  s: Seeded,
  fields: { title?: string; status?: string; assignee?: string; goalId?: string; projectId?: string } = {},
): Promise<string> {
  const task = await createTask(t.app, s.user.token, s.companyId, {
    ...(fields.title ? { title: fields.title } : {}),
    status: fields.status ?? 'todo',
    ...(fields.assignee ? { assignee_agent_id: fields.assignee } : {}),
    ...(fields.goalId ? { goal_id: fields.goalId } : {}),
    ...(fields.projectId ? { project_id: fields.projectId } : {}),
  })
  return task.id
}

/** Every live event the company publishes from now on. */
export function captureEvents(ctx: AppContext, companyId: string) {
  const events: Record<string, string | null>[] = []
  ctx.bus.subscribe(companyId, (event) => events.push(event))
  return events
}

/** The company's audit events, oldest first. */
export async function auditTrail(ctx: AppContext, companyId: string) {
  return ctx.db.many<{ verb: string; entity_type: string; entity_id: string; actor_type: string; actor_name: string; changes: any }>(
    'SELECT verb, entity_type, entity_id, actor_type, actor_name, changes FROM audit_events WHERE company_id = $1 ORDER BY created_at',
    [companyId],
  )
}

/** Moves a running run's last sign of life back by `seconds`, as if its runner went quiet. */
export async function backdateLease(ctx: AppContext, runId: string, seconds: number) {
  await ctx.db.query(
    `UPDATE runs SET heartbeat_at = now() - make_interval(secs => $2), started_at = now() - make_interval(secs => $2) WHERE id = $1`,
    [runId, seconds],
  )
}
