// What an agent is doing: its current run followed live (runs/RunItem.tsx, the same piece the
// task timeline shows). Its recent runs are the runs list's table (RunTable.tsx).
import type { Run } from '#src/client/types.ts'
import { RunItem } from '../runs/RunItem.tsx'

/** The run in progress (or, failing that, the next one waiting for a runner). */
export function currentRun(runs: Run[]): Run | undefined {
  return runs.find((run) => run.status === 'running') ?? runs.findLast((run) => run.status === 'queued')
}

export function CurrentRun({ companyId, run }: { companyId: string; run: Run | undefined }) {
  if (!run) return <p className="empty">Not working on anything right now.</p>
  // Keyed by run, so a new run opens its transcript afresh.
  return <ol className="timeline"><RunItem key={run.id} companyId={companyId} run={run} showTask /></ol>
}
