/** What one load run measured. Latencies are milliseconds. */
export interface LoadResult {
  requests: number
  errors: number
  /** Answers by HTTP status ("net": the connection failed, "timeout": no answer in time). */
  statuses: Record<string, number>
  seconds: number
  rps: number
  p50: number
  p99: number
  max: number
  /** Scenario-specific figures (finished runs, double claims...). */
  extra?: Record<string, number>
  /** The same figures for the requests of each label (RequestSpec.label), over the same seconds. */
  byLabel?: Record<string, LoadResult>
}

/** The q-quantile (0..1) of sorted values, nearest rank. */
function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return 0
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  return sorted[rank]
}

/** The median and the 99th percentile (nearest rank) of some values. */
export function quantiles(values: number[]): { p50: number; p99: number } {
  const sorted = Float64Array.from(values).sort()
  return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) }
}

/** Collects latencies and answer codes of a load run. */
export class Recorder {
  private latencies: number[] = []
  private statuses: Record<string, number> = {}
  private errors = 0

  record(ms: number, status: number | 'net' | 'timeout', ok: boolean): void {
    this.latencies.push(ms)
    this.statuses[status] = (this.statuses[status] ?? 0) + 1
    if (!ok) this.errors++
  }

  result(seconds: number, extra?: Record<string, number>): LoadResult {
    const sorted = Float64Array.from(this.latencies).sort()
    return {
      requests: sorted.length,
      errors: this.errors,
      statuses: this.statuses,
      seconds,
      rps: seconds > 0 ? sorted.length / seconds : 0,
      p50: quantile(sorted, 0.5),
      p99: quantile(sorted, 0.99),
      max: sorted.length ? sorted[sorted.length - 1] : 0,
      ...(extra ? { extra } : {}),
    }
  }
}
