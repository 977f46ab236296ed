// Who makes a change, as the audit trail names it. The HTTP layer turns a caller into an actor
// (http/guards.ts) and every resource passes it down to its writes, so it lives below them.

export type Actor =
  | { type: 'user'; userId: string; name: string }
  | { type: 'agent'; agentId: string; name: string; runId: string | null }
  | { type: 'system'; name: string } // the agent's name when an agent is involved, else "system"

/** `system` actor named after the agent involved, or plain `system`. */
export function systemActor(agentName?: string | null): Actor {
  return { type: 'system', name: agentName ?? 'system' }
}
