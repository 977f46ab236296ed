// The live event stream (GET /api/companies/{company_id}/events, text/event-stream).

/** An invalidation signal: which entity changed (`type` is `<entity>.<verb>`), not its new state. */
export interface LiveEvent {
  type: string
  id: string | null
  agent_id?: string | null
  status?: string | null
  [extra: string]: string | null | undefined
}
