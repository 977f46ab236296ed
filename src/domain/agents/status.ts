// Agent statuses (SPEC.md "Agent status"). Dormant agents are not woken by assignments,
// routines or heartbeats, waking them is INVALID_STATE, and runners skip their queued runs.
export const AGENT_STATUSES = ['idle', 'running', 'paused', 'pending_approval', 'terminated', 'error'] as const
export type AgentStatus = (typeof AGENT_STATUSES)[number]

export const DORMANT_STATUSES: readonly AgentStatus[] = ['paused', 'pending_approval', 'terminated']

/** An assignee is available (gets an assignment run) unless it is dormant. */
export function isDormant(status: string): boolean {
  return (DORMANT_STATUSES as readonly string[]).includes(status)
}
