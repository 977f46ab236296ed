import type { AppContext } from '../../server/context.ts'

// Runners are recorded as they are heard from: each claim and each heartbeat is a sighting.
// Claims and heartbeats are the runners' hot paths, so a sighting costs nothing most of the
// time: this process remembers when it last recorded each runner and skips the database for
// SEEN_INTERVAL_SECONDS, and the statement itself writes only when the stored sighting is
// older than that (another API instance may have just written it) or what the runner offers
// or its cool-downs changed. A runner's last_seen_at is therefore at most a few seconds behind, far less than
// the two lease lengths after which it counts as gone.

export const SEEN_INTERVAL_SECONDS = 5

export interface Sighting {
  runnerId: string
  /** What a claim says the runner offers; absent for a heartbeat, which changes neither. */
  offer?: { adapters: string[] | null; versions: Record<string, string> }
  /** The provider credentials it rests until their reset, from a claim or heartbeat; absent: unchanged. */
  cooldowns?: { provider: string; until: string }[]
}

/** Per process (per app context): runner key -> when it was last recorded and what it offered. */
const recorded = new WeakMap<AppContext, Map<string, { at: number; offer: string | null; cooldowns: string | null }>>()
const MAX_REMEMBERED = 10_000

/**
 * Inserts the runner, or refreshes its last_seen_at (and its offer, from a claim) when the
 * stored sighting is stale or the offer or cool-downs changed; otherwise writes nothing. $5 says
 * whether the sighting carries an offer; $7 is null when it carries no cool-downs.
 */
const RECORD = `
  INSERT INTO runners AS r (company_id, runner_id, adapters, versions, cooldowns)
  SELECT $1::uuid, $2::varchar, $3::jsonb, coalesce($4::jsonb, '{}'::jsonb), coalesce($7::jsonb, '[]'::jsonb)
   WHERE NOT EXISTS (
     SELECT 1 FROM runners s
      WHERE s.company_id = $1::uuid AND s.runner_id = $2::varchar
        AND s.last_seen_at >= now() - make_interval(secs => $6) AND s.stopped_at IS NULL
        AND (NOT $5::boolean OR (s.adapters IS NOT DISTINCT FROM $3::jsonb AND s.versions = $4::jsonb))
        AND ($7::jsonb IS NULL OR s.cooldowns = $7::jsonb))
  ON CONFLICT (company_id, runner_id) DO UPDATE SET
    last_seen_at = now(),
    stopped_at = NULL,
    adapters = CASE WHEN $5::boolean THEN EXCLUDED.adapters ELSE r.adapters END,
    versions = CASE WHEN $5::boolean THEN EXCLUDED.versions ELSE r.versions END,
    cooldowns = coalesce($7::jsonb, r.cooldowns)`

/**
 * A runner stopped cleanly: its presence reads `stopped` until it is heard from again. Unknown
 * runner ids change nothing (a runner that stopped before its first claim).
 */
export async function runnerGoodbye(ctx: AppContext, companyId: string, runnerId: string): Promise<void> {
  recorded.get(ctx)?.delete(`${companyId}/${runnerId}`)
  await ctx.db.query('UPDATE runners SET stopped_at = now(), last_seen_at = now() WHERE company_id = $1 AND runner_id = $2', [companyId, runnerId])
}

/** Records that a runner of the company was heard from (see above for what it costs). */
export async function runnerSeen(ctx: AppContext, companyId: string, sighting: Sighting): Promise<void> {
  let memo = recorded.get(ctx)
  if (!memo) recorded.set(ctx, (memo = new Map()))
  const key = `${companyId}/${sighting.runnerId}`
  const offer = sighting.offer ? JSON.stringify(sighting.offer) : null
  const cooldowns = sighting.cooldowns
    ? JSON.stringify([...sighting.cooldowns].sort((a, b) => a.provider.localeCompare(b.provider)).map(({ provider, until }) => ({ provider, until })))
    : null
  const last = memo.get(key)
  const now = Date.now()
  if (last && now - last.at < SEEN_INTERVAL_SECONDS * 1000 && (offer === null || offer === last.offer)
    && (cooldowns === null || cooldowns === last.cooldowns)) return
  const adapters = sighting.offer?.adapters ? JSON.stringify([...sighting.offer.adapters].sort()) : null
  const versions = sighting.offer ? JSON.stringify(sighting.offer.versions) : null
  await ctx.db.query(RECORD, [companyId, sighting.runnerId, adapters, versions, offer !== null, SEEN_INTERVAL_SECONDS, cooldowns])
  if (memo.size >= MAX_REMEMBERED) memo.clear()
  memo.set(key, { at: now, offer: offer ?? last?.offer ?? null, cooldowns: cooldowns ?? last?.cooldowns ?? null })
}
