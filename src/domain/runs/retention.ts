import type { Queryable } from '../../server/db/db.ts'
import { transcriptsTrimmed } from '../../server/metrics.ts'

/** Runs trimmed per statement: each statement locks only these rows, for a moment. */
export const TRIM_BATCH = 200

/**
 * One batch of transcript retention: the transcripts of up to `batch` runs that finished more
 * than `days` days ago are replaced by one `system` entry saying they were removed, and the run
 * records when (`transcript_trimmed_at`, in the run's answer). Their patches (run_patches, up to
 * 5 MiB each: the diff of what the run changed) go too; the run's `changes`, its summary of
 * branch, commits and files, stays. The run itself, its totals and
 * the audit trail stay. SKIP LOCKED: a run being written is left for the next batch, and
 * several schedulers never wait for each other. Answers how many runs were trimmed.
 */
export async function trimTranscripts(q: Queryable, days: number, batch = TRIM_BATCH): Promise<number> {
  // The note takes the first entry's place and every other entry goes: rows apart, so that the
  // statement's delete and upsert never meet (migration 220).
  const { rowCount } = await q.query(
    `WITH due AS (
       SELECT id FROM runs
        WHERE ended_at IS NOT NULL AND transcript_trimmed_at IS NULL AND ended_at < now() - make_interval(days => $1)
        ORDER BY ended_at
        LIMIT $2
        FOR UPDATE SKIP LOCKED
     ), removed AS (
       DELETE FROM run_transcript_entries e USING due WHERE e.run_id = due.id AND e.seq > 1
     ), patches AS (
       DELETE FROM run_patches p USING due WHERE p.run_id = due.id
     ), noted AS (
       INSERT INTO run_transcript_entries (run_id, seq, entry)
       SELECT id, 1, jsonb_build_object(
                'timestamp', now(), 'role', 'system',
                'text', 'Transcript removed: the run finished more than ' || $1 || ' days ago (TRANSCRIPT_RETENTION_DAYS).')
         FROM due
       ON CONFLICT (run_id, seq) DO UPDATE SET entry = excluded.entry
     )
     UPDATE runs r SET transcript_count = 1, transcript_trimmed_at = now()
       FROM due WHERE r.id = due.id`,
    [days, batch],
  )
  transcriptsTrimmed.inc(rowCount)
  return rowCount
}

/** Batches until nothing is due, pausing between them so other writes get the rows and the disk. */
export async function trimAllTranscripts(q: Queryable, days: number, shouldStop: () => boolean = () => false): Promise<number> {
  let total = 0
  for (;;) {
    const n = await trimTranscripts(q, days)
    total += n
    if (n < TRIM_BATCH || shouldStop()) return total
    await new Promise((r) => setTimeout(r, 100))
  }
}
