// Why a queued run waits, in words (the Run field `waiting_reason`), when it is not simply waiting
// for a runner to take it: no runner of the company is online, or none of the online ones can run
// the agent's adapter (each runner's presence lists the adapters it claims for: the CLIs it found
// in a supported version). Null for a run that is not queued, or that an online runner can take.
import { ADAPTER_PRODUCTS } from '../../contract/adapter-config.ts'
import type { Queryable } from '../../server/db/db.ts'
import type { Run } from './model.ts'

const label = (adapter: string) => {
  const name = (ADAPTER_PRODUCTS as Record<string, string>)[adapter]
  return name && name !== adapter ? `${name} (${adapter})` : adapter
}

/** The reason for one queued run of an agent with `adapter`, given the online runners' adapter lists (null: every adapter). */
export function waitingReason(adapter: string, online: { runner_id: string; adapters: string[] | null }[]): string | null {
  if (online.length === 0) return 'no runner of the company is online: start one with `shopfloor runner`'
  if (online.some((r) => r.adapters === null || r.adapters.includes(adapter))) return null
  const offers = online.slice(0, 5).map((r) => `${r.runner_id}: ${r.adapters!.map(label).join(', ') || 'none'}`).join('; ')
  return `no online runner can run ${label(adapter)}: it is not installed there in a supported version ` +
    `(\`shopfloor runner doctor\` says why); online runners run ${offers}${online.length > 5 ? '; ...' : ''}`
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
      'SELECT id, adapter FROM agents WHERE company_id = $1 AND id = ANY($2::uuid[])',
      [companyId, [...new Set(queued.map((r) => r.agent_id))]],
    ),
  ])
  const adapterOf = new Map(agents.map((a) => [a.id, a.adapter]))
  return runs.map((r) => ({
    ...r,
    waiting_reason: r.status === 'queued' && adapterOf.has(r.agent_id) ? waitingReason(adapterOf.get(r.agent_id)!, online) : null,
  }))
}
