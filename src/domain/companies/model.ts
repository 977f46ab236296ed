// The Company record as the API returns it (src/contract/companies.ts), with the caller's role when it is known.
export type { Company } from '../../contract/companies.ts'

/** Company columns, read from alias `c`; the role comes from membership alias `m`. */
export const COMPANY_COLUMNS = 'c.id, c.name, c.mission, c.monthly_budget_cents, c.task_prefix, c.created_at, m.role'

/** Fields a PATCH may change, in audit order. */
export const COMPANY_FIELDS = ['name', 'mission', 'monthly_budget_cents'] as const
