// The Routine record as the API returns it (SPEC.md "Routine").

export interface Routine {
  id: string
  company_id: string
  agent_id: string
  project_id: string | null
  title: string
  description: string | null
  cron: string
  enabled: boolean
  last_run_at: string | null
  created_at: string
}

/** Fields a client sets, in audit order. */
export const ROUTINE_FIELDS = ['agent_id', 'project_id', 'title', 'description', 'cron', 'enabled'] as const
export type RoutineInput = Partial<Pick<Routine, (typeof ROUTINE_FIELDS)[number]>>

export const ROUTINE_COLUMNS = 'id, company_id, agent_id, project_id, title, description, cron, enabled, last_run_at, created_at'
