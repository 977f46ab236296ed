import { peakRss, runLoad } from '../lib/processes.ts'
import { LOAD_COLUMNS, loadCells, pct, type Section } from '../lib/report.ts'
import { type Bench, type Ceilings, closedLoop } from './context.ts'
import { type Fixture, taskReads } from './fixture.ts'

/**
 * Workload 1: GET /tasks/{key} with an API key, 50 connections. Target: at least half the
 * requests per second of the bare one-SELECT route. The server's resident memory is sampled
 * meanwhile (workload 7).
 */
export async function taskRead(bench: Bench, f: Fixture, serverPid: number, ceilings: Ceilings | null) {
  bench.log('workload 1: GET /tasks/{key}')
  const { result, peakMiB } = await peakRss(serverPid, () => runLoad(closedLoop(bench, f.base, taskReads(f))))
  const ratio = ceilings ? result.rps / ceilings.oneSelect.rps : null
  const section: Section = {
    title: '1. GET /tasks/{key}',
    columns: ['run', ...LOAD_COLUMNS, 'ratio to one-SELECT ceiling'],
    rows: [[`${bench.sizes.connections} connections, ${f.taskKeys.length} tasks round-robin`, ...loadCells(result), ratio === null ? '' : pct(ratio)]],
    verdicts: [{ target: '>= 50% of the one-SELECT ceiling', measured: ratio === null ? 'no ceiling' : pct(ratio), met: ratio === null ? null : ratio >= 0.5 }],
    notes: [],
  }
  return { result, peakMiB, section }
}
