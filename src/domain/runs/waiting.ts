// Why a queued run waits, in words (the Run field `waiting_reason`), when it is not simply waiting
// for a runner to take it: no runner of the company is online, or none of the online ones can run
// the agent's adapter (each runner's presence lists the adapters it claims for: the CLIs it found
// in a supported version). Null for a run that is not queued, or that an online runner can take.
import { ADAPTER_PRODUCTS } from '../../contract/adapter-config.ts'
import type { Queryable } from '../../server/db/db.ts'
import type { Run } from './model.ts'

const label = (adapter: string) => (ADAPTER_PRODUCTS as Record<string, string>)[adapter] ?? adapter

/** Runner names as a person reads them: "a", "a and b", "a, b and 3 more". */
function runnerList(ids: string[]): string {
  const shown = ids.slice(0, 2)
  if (ids.length > 2) return `${shown.join(', ')} and ${ids.length - 2} more`
  return shown.join(' and ')
}

/**
 * The reason for one queued run of an agent with `adapter`, given the online runners' adapter
 * lists (null: every adapter). Said as the web app shows it, with what each runner does run.
 */
export function waitingReason(adapter: string, online: { runner_id: string; adapters: string[] | null }[]): string | null {
  if (online.length === 0) return 'No runner is connected: connect one to run it (`shopfloor runner`).'
  if (online.some((r) => r.adapters === null || r.adapters.includes(adapter))) return null
  const offers = online.slice(0, 5).map((r) => `${r.runner_id}: ${r.adapters!.map(label).join(', ') || 'none'}`).join('; ')
  return `No connected runner can run ${label(adapter)}: install it on ${runnerList(online.map((r) => r.runner_id))} or pick another ` +
    `agent type (\`shopfloor runner doctor\` says why a runner cannot; online runners run ${offers}${online.length > 5 ? '; ...' : ''}).`
}

/**
 * `runs` with `waiting_reason` set: the company's online runners (silent for less than two lease
 * lengths, as GET /runners counts them) and the agents' adapters are read once, and only when a
 * run is queued.
 */
export async function withWaitingReasons<T extends Run>(q: Queryable, companyId: string, runs: T[], leaseSeconds: number): Promise<T[]> {
  const queued = runs.filter((r) => r.status === 'queued')
  if (queued.length === 0) return runs.map((r) => ({ ...r, waiting_reason: null }))
  const [online, agents] = await Promise.all([
    q.many<{ runner_id: string; adapters: string[] | null }>(
      `SELECT runner_id, adapters FROM runners
        WHERE company_id = $1 AND last_seen_at >= now() - make_interval(secs => $2 * 2)
        ORDER BY last_seen_at DESC, runner_id`,
      [companyId, leaseSeconds],
    ),
    q.many<{ id: string; adapter: string }>(
      'SELECT id, adapter FROM agents WHERE id = ANY($2::uuid[]) AND company_id IS NOT DISTINCT FROM $1',
      [companyId, [...new Set(queued.map((r) => r.agent_id))]],
    ),
  ])
  const adapterOf = new Map(agents.map((a) => [a.id, a.adapter]))
  return runs.map((r) => ({
    ...r,
    waiting_reason: r.status === 'queued' && adapterOf.has(r.agent_id) ? waitingReason(adapterOf.get(r.agent_id)!, online) : null,
  }))
}
