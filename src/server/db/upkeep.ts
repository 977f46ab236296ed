import type { Logger } from 'pino'
import { embeddedUpkeep, embeddedUpkeepSeconds } from '../metrics.ts'
import type { Db } from './db.ts'

/**
 * What autovacuum does for a PostgreSQL server, done for the embedded database, which has no
 * background workers: tables whose rows changed enough since their last ANALYZE are analysed,
 * and tables with enough dead row versions vacuumed (and analysed), by PostgreSQL's own
 * thresholds (50 rows plus 10% of the table for ANALYZE, plus 20% for VACUUM, or the table's
 * autovacuum_*_scale_factor). Without statistics the planner guessed every company at 0.5% of a
 * table and sorted its whole part of it for a list (a page of 100 runs read a company's 20,000,
 * a page of 50 audit events its 5,000); without VACUUM each run's three updates would leave
 * dead versions for ever.
 *
 * PGlite runs one statement at a time, so requests wait while a table is done: ANALYZE reads
 * a sample of at most 30,000 rows whatever the table's size, and VACUUM skips the pages the
 * visibility map says hold nothing dead.
 */
const TABLES_DUE = `
  SELECT s.relname AS name,
         s.n_dead_tup > 50 + coalesce(o.vacuum_scale, 0.2) * greatest(c.reltuples, 0) AS vacuum,
         s.n_mod_since_analyze > 50 + coalesce(o.analyze_scale, 0.1) * greatest(c.reltuples, 0) AS analyze
    FROM pg_stat_user_tables s
    JOIN pg_class c ON c.oid = s.relid
    CROSS JOIN LATERAL (
      SELECT max(option_value::float8) FILTER (WHERE option_name = 'autovacuum_vacuum_scale_factor') AS vacuum_scale,
             max(option_value::float8) FILTER (WHERE option_name = 'autovacuum_analyze_scale_factor') AS analyze_scale
        FROM pg_options_to_table(c.reloptions)) o
   WHERE s.schemaname = 'public'
   ORDER BY s.relname`

/** One pass: the tables due, each vacuumed or analysed. Returns what was done, for the log and tests. */
export async function upkeepOnce(db: Db): Promise<{ vacuumed: string[]; analysed: string[] }> {
  const due = await db.many<{ name: string; vacuum: boolean; analyze: boolean }>(TABLES_DUE)
  const done = { vacuumed: [] as string[], analysed: [] as string[] }
  const started = performance.now()
  for (const table of due) {
    const name = `"${table.name.replaceAll('"', '""')}"`
    if (table.vacuum) {
      await db.exec(`VACUUM (ANALYZE) public.${name}`)
      done.vacuumed.push(table.name)
      embeddedUpkeep.inc({ action: 'vacuum' })
    } else if (table.analyze) {
      await db.exec(`ANALYZE public.${name}`)
      done.analysed.push(table.name)
      embeddedUpkeep.inc({ action: 'analyze' })
    }
  }
  if (done.vacuumed.length || done.analysed.length) embeddedUpkeepSeconds.inc((performance.now() - started) / 1000)
  return done
}

/**
 * Upkeep of the embedded database every `intervalMs` (default a minute, autovacuum's naptime),
 * starting at once; nothing for a PostgreSQL server, whose autovacuum does it.
 */
export function startUpkeep(db: Db, log: Logger, intervalMs = 60_000): { stop(): Promise<void> } {
  if (db.kind !== 'pglite') return { stop: async () => {} }
  let running: Promise<void> | null = null
  const pass = () => {
    running ??= upkeepOnce(db)
      .then((done) => {
        if (done.vacuumed.length || done.analysed.length) log.debug(done, 'embedded database upkeep')
      })
      .catch((err) => log.warn({ err: err.message }, 'embedded database upkeep failed'))
      .finally(() => {
        running = null
      })
  }
  pass()
  const timer = setInterval(pass, intervalMs)
  timer.unref()
  return {
    async stop() {
      clearInterval(timer)
      await running
    },
  }
}
