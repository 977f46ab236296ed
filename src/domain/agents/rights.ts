import type { FastifyRequest } from 'fastify'
import type { RunCredential } from '../../server/auth/authenticate.ts'
import type { AppContext } from '../../server/context.ts'
import type { Queryable } from '../../server/db/db.ts'
import { AppError, invalidField } from '../../server/errors.ts'
import { shortestGapSeconds } from '../../contract/schedule.ts'
import { chainReaches, findInCompany } from '../companies/references.ts'
import { getDocument } from '../documents/service.ts'
import { findTask } from '../tasks/find.ts'

// What an agent may do through its run credential (API-DECISIONS.md "Agents acting through a
// run"), in one place: every read of its company; tasks for nobody, itself or an agent below it
// in the org chart; updates of tasks it is assigned to or created; comments on any task; new
// goals and projects; waking agents below it; hiring, always through a `hire_agent` approval.
// Everything else is 403 FORBIDDEN naming the right that is missing. A write route that is not
// in RULES is refused: a new route is closed to agents until a rule here opens it.
//
// The checks run after validation (preHandler), so the body is well formed; a referenced task
// or agent that does not exist is left to the handler's own 404.

interface Check {
  db: Queryable
  run: RunCredential
  params: Record<string, string>
  body: Record<string, unknown>
}

type Rule = (check: Check) => Promise<void> | void

function forbidden(right: string): AppError {
  return new AppError('FORBIDDEN', `An agent's run credential lacks the right to ${right}`, { right })
}

const deny = (right: string): Rule => () => {
  throw forbidden(right)
}
const allow: Rule = () => {}

/** True when `agentId` reports to `managerId`, directly or through other managers. */
async function isBelow(db: Queryable, companyId: string, agentId: string, managerId: string): Promise<boolean> {
  return agentId !== managerId && chainReaches(db, 'agents', companyId, agentId, managerId)
}

/** Tasks go to nobody, to the agent itself or to an agent below it. */
async function checkAssignee(db: Queryable, run: RunCredential, assigneeId: unknown): Promise<void> {
  if (typeof assigneeId !== 'string' || assigneeId === run.agentId) return
  await findInCompany(db, 'agents', run.companyId, assigneeId, 'Assignee')
  if (!(await isBelow(db, run.companyId, assigneeId, run.agentId))) {
    throw forbidden('assign tasks to agents other than itself and those below it in the org chart')
  }
}

/**
 * A task goes under a parent only where the agent could update the parent: its own, one it
 * created, or one assigned below it. Else one agent could hang work under another's task and,
 * closing it, wake that agent.
 */
async function checkParent(db: Queryable, run: RunCredential, parentId: unknown): Promise<void> {
  if (typeof parentId !== 'string') return
  const parent = await db.one<{ assignee_agent_id: string | null; created_by_agent_id: string | null }>(
    'SELECT assignee_agent_id, created_by_agent_id FROM tasks WHERE id = $1 AND company_id = $2',
    [parentId, run.companyId],
  )
  if (!parent) return // the handler's own 404
  if (parent.assignee_agent_id === run.agentId || parent.created_by_agent_id === run.agentId) return
  if (parent.assignee_agent_id && (await isBelow(db, run.companyId, parent.assignee_agent_id, run.agentId))) return
  throw forbidden('put tasks under a task it may not update')
}

/** The fewest seconds between two heartbeats an agent may propose for a hire. */
const PROPOSED_HEARTBEAT_SECONDS = 3600

/**
 * A hire an agent proposes is a request to a person, and may not ask for what lets the new
 * agent do more than its proposer: commands, arguments or variables of the runner's machine, a
 * heartbeat more often than hourly, or a budget above the proposer's own (422 naming the field).
 */
async function checkProposedHire(db: Queryable, run: RunCredential, body: Record<string, unknown>): Promise<void> {
  const config = (body.adapter_config ?? {}) as Record<string, unknown>
  for (const key of ['command', 'args', 'env']) {
    if (config[key] !== undefined) {
      throw invalidField('body', `adapter_config.${key}`, `A hire an agent proposes may not set adapter_config.${key}; a person may set it after approving`, config[key])
    }
  }
  if (typeof body.heartbeat_cron === 'string' && body.heartbeat_cron.trim()) {
    let gap: number | null
    try {
      gap = shortestGapSeconds(body.heartbeat_cron)
    } catch (err) {
      throw invalidField('body', 'heartbeat_cron', `Not a cron expression: ${(err as Error).message}`, body.heartbeat_cron)
    }
    if (gap !== null && gap < PROPOSED_HEARTBEAT_SECONDS) {
      throw invalidField('body', 'heartbeat_cron', 'A hire an agent proposes may not have a heartbeat more often than hourly', body.heartbeat_cron)
    }
  }
  const own = await db.one<{ monthly_budget_cents: number }>('SELECT monthly_budget_cents FROM agents WHERE id = $1', [run.agentId])
  const ownBudget = Number(own?.monthly_budget_cents ?? 0)
  const proposed = typeof body.monthly_budget_cents === 'number' ? body.monthly_budget_cents : 0
  // 0 is no limit: above any budget but no limit itself.
  if (ownBudget > 0 && (proposed === 0 || proposed > ownBudget)) {
    throw invalidField('body', 'monthly_budget_cents', `A hire an agent proposes may not have a monthly budget above its proposer's own (${ownBudget} cents; 0 is no limit)`, proposed)
  }
}

/**
 * Documents an agent may write: those it created, its own memory, and any a person marked
 * `agent_editable`. Pinning and the agent-editable mark are people's decisions.
 */
async function checkDocumentWrite(db: Queryable, run: RunCredential, documentId: string, body: Record<string, unknown>): Promise<void> {
  const doc = await getDocument(db, run.companyId, documentId)
  if (doc.created_by_agent_id !== run.agentId && doc.agent_id !== run.agentId && !doc.agent_editable) {
    throw forbidden('write documents it neither created nor may edit (its own memory, or one marked agent-editable)')
  }
  checkDocumentMarks(body)
}

function checkDocumentMarks(body: Record<string, unknown>): void {
  if (body.pinned !== undefined || body.agent_editable !== undefined) throw forbidden('pin documents or mark them agent-editable')
}

const RULES: Record<string, Rule> = {
  'POST /tasks': async ({ db, run, body }) => {
    await checkAssignee(db, run, body.assignee_agent_id)
    await checkParent(db, run, body.parent_id)
  },
  'PATCH /tasks/:task_ref': async ({ db, run, params, body }) => {
    const task = await findTask(db, run.companyId, params.task_ref)
    if (task.assignee_agent_id !== run.agentId && task.created_by_agent_id !== run.agentId) {
      throw forbidden('update tasks it is neither assigned to nor created')
    }
    if (body.assignee_agent_id !== undefined && body.assignee_agent_id !== task.assignee_agent_id) {
      await checkAssignee(db, run, body.assignee_agent_id)
    }
    if (body.parent_id !== undefined && body.parent_id !== task.parent_id) await checkParent(db, run, body.parent_id)
  },
  'DELETE /tasks/:task_ref': deny('delete tasks'),
  'POST /tasks/:task_ref/comments': allow,
  // Only the project's reviewer agent: the route itself checks (domain/work/review.ts).
  'POST /tasks/:task_ref/review': allow,
  'PATCH /tasks/:task_ref/comments/:comment_id': deny('edit comments'),
  'DELETE /tasks/:task_ref/comments/:comment_id': deny('delete comments'),
  'POST /goals': allow,
  'PATCH /goals/:goal_id': deny('change goals'),
  'DELETE /goals/:goal_id': deny('delete goals'),
  'POST /projects': ({ body }) => {
    if (body.monthly_budget_cents) throw forbidden('set budgets')
    // What runners clone is a person's choice: an agent could point them at anything.
    if (body.repository != null) throw forbidden('set a repository')
  },
  'PATCH /projects/:project_id': deny('change projects'),
  // A hire made by an agent waits for a person: it always opens a `hire_agent` approval.
  'POST /agents': async ({ db, run, body }) => {
    await checkProposedHire(db, run, body)
    body.request_approval = true
  },
  'PATCH /agents/:agent_id': deny('change agents'),
  'POST /agents/:agent_id/pause': deny('pause, resume or terminate agents'),
  'POST /agents/:agent_id/resume': deny('pause, resume or terminate agents'),
  'POST /agents/:agent_id/terminate': deny('pause, resume or terminate agents'),
  'POST /agents/:agent_id/wake': async ({ db, run, params }) => {
    await findInCompany(db, 'agents', run.companyId, params.agent_id, 'Agent')
    if (!(await isBelow(db, run.companyId, params.agent_id, run.agentId))) {
      throw forbidden('wake agents that are not below it in the org chart')
    }
  },
  'POST /documents': ({ run, body }) => {
    if (body.agent_id != null && body.agent_id !== run.agentId) throw forbidden('write the memory of another agent')
    checkDocumentMarks(body)
  },
  'PATCH /documents/:document_id': ({ db, run, params, body }) => checkDocumentWrite(db, run, params.document_id, body),
  'DELETE /documents/:document_id': async ({ db, run, params }) => {
    const doc = await getDocument(db, run.companyId, params.document_id)
    if (doc.created_by_agent_id !== run.agentId && doc.agent_id !== run.agentId) throw forbidden('delete documents it did not create')
  },
  'POST /skills': deny('manage skills'),
  'PATCH /skills/:skill_id': deny('manage skills'),
  'DELETE /skills/:skill_id': deny('manage skills'),
  'POST /approvals/:approval_id/approve': deny('decide approvals'),
  'POST /approvals/:approval_id/reject': deny('decide approvals'),
  // What runners do for the runs they execute; an agent's run is already claimed and reported.
  'POST /runs/claim': deny('use the runner routes'),
  'POST /runs/expire-stale': deny('use the runner routes'),
  'POST /runs/:run_id/heartbeat': deny('use the runner routes'),
  'PATCH /runs/:run_id': deny('use the runner routes'),
  'PUT /runs/:run_id/patch': deny('use the runner routes'),
  'POST /runs/:run_id/cancel': deny('use the runner routes'),
  'POST /routines': deny('manage routines'),
  'PATCH /routines/:routine_id': deny('manage routines'),
  'DELETE /routines/:routine_id': deny('manage routines'),
  'POST /routines/:routine_id/trigger': deny('manage routines'),
  'POST /webhooks': deny('manage webhooks'),
  'PATCH /webhooks/:webhook_id': deny('manage webhooks'),
  'DELETE /webhooks/:webhook_id': deny('manage webhooks'),
  'POST /webhooks/:webhook_id/deliveries/:delivery_id/retry': deny('manage webhooks'),
  'PATCH ': deny('change the company'),
  'POST /invitations': deny('invite people'),
  'DELETE /invitations/:invitation_id': deny('revoke invitations'),
  'PATCH /members/:user_id': deny('change members'),
  'DELETE /members/:user_id': deny('remove members'),
}

const COMPANY_PREFIX = '/api/companies/:company_id'

/**
 * preHandler for every route: lets a run credential through only where its agent has the
 * right. Other credentials pass untouched (account routes already refuse run credentials).
 */
export function enforceRunRights(ctx: Pick<AppContext, 'db'>) {
  return async (request: FastifyRequest) => {
    const run = request.principal?.run
    if (!run || request.method === 'GET' || request.method === 'HEAD') return
    const url = request.routeOptions.url ?? ''
    const path = url.startsWith(COMPANY_PREFIX) ? url.slice(COMPANY_PREFIX.length) : url
    const rule = RULES[`${request.method} ${path}`]
    if (!rule) throw forbidden(`${request.method} ${path || url}`)
    const body = (request.body ?? {}) as Record<string, unknown>
    // Writes are the run's own without `run_id`; naming another run would borrow its agent.
    if (typeof body.run_id === 'string' && body.run_id !== run.runId) throw forbidden('act for another run')
    await rule({ db: ctx.db, run, params: request.params as Record<string, string>, body })
  }
}
