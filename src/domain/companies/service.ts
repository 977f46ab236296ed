import type { Queryable } from '../../server/db/db.ts'
import type { Tx } from '../../server/db/write.ts'
import { AppError, invalidField } from '../../server/errors.ts'
import type { Actor } from '../../server/actor.ts'
import { diff, recordAudit } from '../audit/record.ts'
import { COMPANY_COLUMNS, COMPANY_FIELDS, type Company } from './model.ts'

export interface CompanyInput {
  name: string
  mission?: string | null
  monthly_budget_cents?: number
  task_prefix?: string
}

/** Creates a company and makes the caller its owner, with a `created` audit event. */
export async function createCompany(tx: Tx, userId: string, actor: Actor, input: CompanyInput): Promise<Company> {
  const row = await tx.one<Omit<Company, 'role'>>(
    `INSERT INTO companies (name, mission, monthly_budget_cents, task_prefix)
     VALUES ($1, $2, $3, $4)
     RETURNING id, name, mission, monthly_budget_cents, task_prefix, created_at`,
    [input.name, input.mission ?? null, input.monthly_budget_cents ?? 0, input.task_prefix ?? 'SVC'],
  )
  const company = { ...row!, role: 'owner' as const }
  await tx.query(`INSERT INTO memberships (company_id, user_id, role) VALUES ($1, $2, 'owner')`, [company.id, userId])
  await recordAudit(tx, {
    companyId: company.id,
    actor,
    verb: 'created',
    entityType: 'company',
    entityId: company.id,
    label: company.name,
    changes: diff({}, company, [...COMPANY_FIELDS, 'task_prefix']),
  })
  // Nothing is published for company creation (SPEC.md Events).
  return company
}

/**
 * The companies the user belongs to, oldest first, each with the user's role; with `onlyCompanyId`
 * (an API key limited to one company) that one alone.
 */
export function listCompanies(db: Queryable, userId: string, onlyCompanyId: string | null = null): Promise<Company[]> {
  return db.many<Company>(
    `SELECT ${COMPANY_COLUMNS}
       FROM memberships m JOIN companies c ON c.id = m.company_id
      WHERE m.user_id = $1 AND ($2::uuid IS NULL OR c.id = $2::uuid)
      ORDER BY c.created_at, c.id`,
    [userId, onlyCompanyId],
  )
}

/** One company as seen by a member (membership already checked). */
export async function getCompany(db: Queryable, companyId: string, userId: string): Promise<Company> {
  const company = await db.one<Company>(
    `SELECT ${COMPANY_COLUMNS}
       FROM companies c JOIN memberships m ON m.company_id = c.id AND m.user_id = $2
      WHERE c.id = $1`,
    [companyId, userId],
  )
  if (!company) throw new AppError('NOT_FOUND', 'Company not found')
  return company
}

export interface CompanyPatch {
  name?: string
  mission?: string | null
  monthly_budget_cents?: number
  task_prefix?: string
}

/**
 * Changes name, mission or budget. The task prefix is immutable: the same value is ignored,
 * another one is a 422. Publishes `company.updated` only when something changed.
 */
export async function updateCompany(tx: Tx, companyId: string, userId: string, actor: Actor, patch: CompanyPatch): Promise<Company> {
  const before = await tx.one<Company>(
    `SELECT ${COMPANY_COLUMNS}
       FROM companies c JOIN memberships m ON m.company_id = c.id AND m.user_id = $2
      WHERE c.id = $1
      FOR NO KEY UPDATE OF c`,
    [companyId, userId],
  )
  if (!before) throw new AppError('NOT_FOUND', 'Company not found')
  if (patch.task_prefix !== undefined && patch.task_prefix !== before.task_prefix) {
    throw invalidField('body', 'task_prefix', 'The task prefix cannot be changed after creation', patch.task_prefix)
  }
  const after = { ...before }
  for (const field of COMPANY_FIELDS) {
    if (patch[field] !== undefined) (after as any)[field] = patch[field]
  }
  const changes = diff(before, after, [...COMPANY_FIELDS])
  if (Object.keys(changes).length === 0) return before

  await tx.query(
    `UPDATE companies SET name = $2, mission = $3, monthly_budget_cents = $4, updated_at = now() WHERE id = $1`,
    [companyId, after.name, after.mission, after.monthly_budget_cents],
  )
  await recordAudit(tx, { companyId, actor, verb: 'updated', entityType: 'company', entityId: companyId, label: after.name, changes })
  tx.publish(companyId, { type: 'company.updated', id: companyId })
  return after
}
