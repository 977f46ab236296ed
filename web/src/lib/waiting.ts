// Why a queued run waits, in words. The server says it (`waiting_reason` on the run, from the
// runners' adapters); where it does not, the page works it out from the runners it knows, so a
// run never waits "for a runner" without saying which runner could take it.
import type { Runner } from '#src/client/types.ts'
import { adapterLabel } from './adapters.ts'

/** The runners that could take a run of this adapter now (a simulating runner takes every adapter). */
export function capableRunners(runners: readonly Runner[], adapter: string | null | undefined): Runner[] {
  return runners.filter((r) => r.status === 'online' && (r.adapters === null || (adapter != null && r.adapters.includes(adapter))))
}

/** Names of runners as a sentence: "a", "a and b", "a, b and c". */
export function runnerList(runners: readonly Runner[]): string {
  const names = runners.map((r) => r.runner_id)
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
}

export interface Waiting {
  text: string
  /** No runner can take it: the page offers the ways out (connect one, a trial, another agent type). */
  stuck: boolean
}

/**
 * Why a queued run waits: the server's own `waiting_reason` when the run has one, else worked
 * out from the company's runners (`runners` undefined while they load).
 */
export function waitingReason(run: { waiting_reason?: string | null }, adapter: string | null | undefined, runners: readonly Runner[] | undefined): Waiting {
  if (run.waiting_reason) return { text: run.waiting_reason, stuck: true }
  const plain = { text: 'Waiting for a runner to pick it up.', stuck: false }
  if (!runners || !adapter) return plain
  const online = runners.filter((r) => r.status === 'online')
  if (online.length === 0) return { text: 'No runner is connected: connect one to run it.', stuck: true }
  if (capableRunners(online, adapter).length === 0) {
    const product = adapterLabel(adapter)
    return { text: `No connected runner can run ${product}: install it on ${runnerList(online)} or pick another agent type.`, stuck: true }
  }
  return plain
}
