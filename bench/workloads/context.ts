import type { Child } from '../lib/processes.ts'
import type { LoadResult } from '../lib/stats.ts'
import type { PgbenchResult } from '../ceilings/pgbench.ts'
import type { Sizes } from '../sizes.ts'
import { num } from '../lib/report.ts'

/** What every workload gets from the harness. */
export interface Bench {
  sizes: Sizes
  /** postgres:// URL of the local server; databases are made next to it. */
  pg: string
  /** The name of one of this run's databases (`sf_bench`, `sf_bench_scale`...). */
  db(part?: string): string
  log(message: string): void
}

/** A Shopfloor server already running on database `url`, lent to a workload that would otherwise start its own. */
export interface SharedServer {
  server: Child
  url: string
}

/** The machine's own ceilings, measured in the same run. */
export interface Ceilings {
  constant: LoadResult
  oneSelect: LoadResult
  /** The one-SELECT route once more (the bare server is kept until the run ends): workload 1 measures it right before and after its own run. */
  oneSelectAgain(): Promise<LoadResult>
  /** Workload 3's runner loops against three bare one-row updates (extra.finishedPerSecond). */
  runnerCycle: LoadResult
  /** CPU per finished cycle of the bare server and of PostgreSQL over that pass, in ms. */
  runnerCycleCpu: { serverMs: number; postgresMs: number }
  selectOnly: PgbenchResult
  tpcb: PgbenchResult
  /**
   * pgbench's default script once more, on the ceilings' database (kept until the run ends):
   * workload 2 measures it right before and after its own run, so that its ratio compares
   * figures of the same minutes of a machine whose speed drifts.
   */
  tpcbAgain(): Promise<PgbenchResult>
}

/** A ceiling's figure right before and right after a workload's run, and their mean. */
export interface Beside {
  before: number
  after: number
  mean: number
}

/**
 * `run` between two measurements of a ceiling (`again` answers its figure), so that a ratio
 * compares figures of the same minutes of a machine whose speed drifts; without a ceiling, none.
 */
export async function between<T>(again: (() => Promise<number>) | null, run: () => Promise<T>): Promise<{ result: T; beside: Beside | null }> {
  const before = again ? await again() : null
  const result = await run()
  const after = again ? await again() : null
  return { result, beside: before === null || after === null ? null : { before, after, mean: (before + after) / 2 } }
}

/** The report's note on a ceiling measured beside a run; `earlier` is the ceilings' own figure. */
export function besideNote(measured: string, unit: string, beside: Beside, earlier: number): string {
  return `${measured}: ${num(beside.before)} ${unit}; right after: ${num(beside.after)}; "beside" compares with their mean, ` +
    `${num(beside.mean)} (the ceilings' figure, measured minutes earlier, was ${num(earlier)}).`
}

/** The closed-loop settings every HTTP workload shares. */
export function closedLoop(bench: Bench, base: string, requests: { method: string; path: string; headers?: Record<string, string>; body?: unknown }[], okStatus = 200) {
  const { seconds, warmup, connections } = bench.sizes
  return { mode: 'closed' as const, base, connections, seconds, warmup, requests, okStatus }
}

export const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` })
