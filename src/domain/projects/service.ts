import type { Queryable } from '../../server/db/db.ts'
import type { Tx } from '../../server/db/write.ts'
import { invalidField, notFound } from '../../server/errors.ts'
import type { Project } from '../../contract/projects.ts'
import { CHECK_TIMEOUT_DEFAULT_SECONDS, type Check, type CheckInput } from '../../contract/work.ts'
import type { Actor } from '../../server/actor.ts'
import { diff, recordAudit } from '../audit/record.ts'

// Projects group tasks; a repository makes runs for their tasks execute in a git worktree.
// Status is informational and always `active` on create (set on update only). No delete: a
// project is archived.

export { PROJECT_STATUSES, type Project } from '../../contract/projects.ts'
const PROJECT_FIELDS = ['name', 'description', 'repository', 'monthly_budget_cents', 'status', 'default_branch', 'checks',
  'require_checks', 'merge_on_approve', 'reviewer_agent_id'] as const

export type ProjectInput = Partial<Omit<Pick<Project, (typeof PROJECT_FIELDS)[number]>, 'checks'>> & { checks?: CheckInput[] }

export const PROJECT_COLUMNS = `id, company_id, name, description, repository, monthly_budget_cents, status, default_branch, checks,
  require_checks, merge_on_approve, reviewer_agent_id, created_at, updated_at`
const COLUMNS = PROJECT_COLUMNS

export function listProjects(db: Queryable, companyId: string): Promise<Project[]> {
  return db.many<Project>(`SELECT ${COLUMNS} FROM projects WHERE company_id = $1 ORDER BY created_at, id`, [companyId])
}

export async function getProject(db: Queryable, companyId: string, projectId: string, lock = false): Promise<Project> {
  const project = await db.one<Project>(
    `SELECT ${COLUMNS} FROM projects WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2 ${lock ? 'FOR NO KEY UPDATE' : ''}`,
    [projectId, companyId],
  )
  if (!project) throw notFound('Project')
  return project
}

/** Checks as stored: every one with its timeout. */
function fullChecks(checks: CheckInput[]): Check[] {
  return checks.map((c) => ({ name: c.name, command: c.command, timeout_seconds: c.timeout_seconds ?? CHECK_TIMEOUT_DEFAULT_SECONDS }))
}

/** A reviewer is an agent of the same company (422 otherwise). */
async function checkReviewer(q: Queryable, companyId: string, agentId: string | null | undefined): Promise<void> {
  if (!agentId) return
  const found = await q.one('SELECT 1 FROM agents WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2', [agentId, companyId])
  if (!found) throw invalidField('body', 'reviewer_agent_id', 'No agent of this company has this id', agentId)
}

export async function createProject(tx: Tx, companyId: string, actor: Actor, input: ProjectInput & { name: string }): Promise<Project> {
  await checkReviewer(tx, companyId, input.reviewer_agent_id)
  const project = (await tx.one<Project>(
    `INSERT INTO projects (company_id, name, description, repository, monthly_budget_cents, default_branch, checks, require_checks,
                           merge_on_approve, reviewer_agent_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${COLUMNS}`,
    [companyId, input.name, input.description ?? null, input.repository ?? null, input.monthly_budget_cents ?? 0,
      input.default_branch ?? 'main', JSON.stringify(fullChecks(input.checks ?? [])), input.require_checks ?? false,
      input.merge_on_approve ?? false, input.reviewer_agent_id ?? null],
  ))!
  await recordAudit(tx, {
    companyId, actor, verb: 'created', entityType: 'project', entityId: project.id, label: project.name,
    changes: diff({}, project, [...PROJECT_FIELDS]),
  })
  tx.publish(companyId, { type: 'project.created', id: project.id })
  return project
}

/** Changes the fields present; nothing is written or published when nothing changed. */
export async function updateProject(tx: Tx, companyId: string, projectId: string, actor: Actor, patch: ProjectInput): Promise<Project> {
  const before = await getProject(tx, companyId, projectId, true)
  if (patch.reviewer_agent_id !== before.reviewer_agent_id) await checkReviewer(tx, companyId, patch.reviewer_agent_id)
  const after: Record<string, unknown> = { ...before }
  for (const field of PROJECT_FIELDS) if (patch[field] !== undefined) after[field] = patch[field]
  if (patch.checks) after.checks = fullChecks(patch.checks)
  const changes = diff(before, after, [...PROJECT_FIELDS])
  if (Object.keys(changes).length === 0) return before
  const project = (await tx.one<Project>(
    `UPDATE projects SET name = $3, description = $4, repository = $5, monthly_budget_cents = $6, status = $7, default_branch = $8,
            checks = $9, require_checks = $10, merge_on_approve = $11, reviewer_agent_id = $12, updated_at = now()
      WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2 RETURNING ${COLUMNS}`,
    [projectId, companyId, after.name, after.description, after.repository, after.monthly_budget_cents, after.status, after.default_branch,
      JSON.stringify(after.checks), after.require_checks, after.merge_on_approve, after.reviewer_agent_id],
  ))!
  await recordAudit(tx, { companyId, actor, verb: 'updated', entityType: 'project', entityId: projectId, label: project.name, changes })
  tx.publish(companyId, { type: 'project.updated', id: projectId })
  return project
}
