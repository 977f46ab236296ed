// Rows the runs tests start from, written with SQL: a company with its owner, agents and tasks.
import type { AppContext } from '../../src/server/context.ts'
import { createUser, type TestUser } from '../helpers.ts'

export interface Seeded {
  user: TestUser
  companyId: string
  base: string
}

let prefixCounter = 0

export async function seedCompany(ctx: AppContext, options: { budget?: number } = {}): Promise<Seeded> {
  const user = await createUser(ctx, 'Runs Tester')
  const prefix = `R${(++prefixCounter).toString(36).toUpperCase()}`
  const company = await ctx.db.one<{ id: string }>(
    'INSERT INTO companies (name, task_prefix, monthly_budget_cents) VALUES ($1, $2, $3) RETURNING id',
    ['Runs Co', prefix, options.budget ?? 0],
  )
  await ctx.db.query("INSERT INTO memberships (company_id, user_id, role) VALUES ($1, $2, 'owner')", [company!.id, user.id])
  return { user, companyId: company!.id, base: `/api/companies/${company!.id}` }
}

export async function seedAgent(
  ctx: AppContext,
  companyId: string,
  fields: { name?: string; status?: string; budget?: number; adapter?: string; reportsTo?: string } = {},
): Promise<string> {
  const row = await ctx.db.one<{ id: string }>(
    `INSERT INTO agents (company_id, name, status, monthly_budget_cents, adapter, reports_to_id, role)
     VALUES ($1, $2, $3, $4, $5, $6, 'engineer') RETURNING id`,
    [companyId, fields.name ?? 'Ada', fields.status ?? 'idle', fields.budget ?? 0, fields.adapter ?? 'agent_cli_1', fields.reportsTo ?? null],
  )
  return row!.id
}

export async function seedTask(
  ctx: AppContext,
  companyId: string,
  fields: { title?: string; status?: string; assignee?: string | null; goalId?: string; projectId?: string; createdBy?: string } = {},
): Promise<string> {
  const row = await ctx.db.one<{ id: string }>(
    `WITH n AS (UPDATE companies SET last_task_number = last_task_number + 1 WHERE id = $1 RETURNING last_task_number)
     INSERT INTO tasks (company_id, number, title, status, assignee_agent_id, goal_id, project_id, created_by_user_id)
     SELECT $1, n.last_task_number, $2, $3, $4, $5, $6, $7 FROM n RETURNING id`,
    [companyId, fields.title ?? 'Do the thing', fields.status ?? 'todo', fields.assignee ?? null, fields.goalId ?? null,
      fields.projectId ?? null, fields.createdBy ?? null],
  )
  return row!.id
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
