// The Routine record as the API returns it (src/contract/routines.ts).
import type { Routine } from '../../contract/routines.ts'

export type { Routine } from '../../contract/routines.ts'

/** Fields a client sets, in audit order. */
export const ROUTINE_FIELDS = ['agent_id', 'project_id', 'title', 'description', 'cron', 'enabled'] as const
export type RoutineInput = Partial<Pick<Routine, (typeof ROUTINE_FIELDS)[number]>>

export const ROUTINE_COLUMNS = 'id, company_id, agent_id, project_id, title, description, cron, enabled, last_run_at, created_at'
