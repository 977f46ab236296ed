import { peakRss, runLoad } from '../lib/processes.ts'
import { LOAD_COLUMNS, loadCells, num, pct, type Section } from '../lib/report.ts'
import { type Bench, type Ceilings, besideNote, between, closedLoop } from './context.ts'
import { type Fixture, taskReads } from './fixture.ts'

/**
 * Workload 1: GET /tasks/{key} with an API key, 50 connections. Target: at least half the
 * requests per second of the bare one-SELECT route, measured right before and right after
 * (their mean): on this machine that route measured 4,500 and 7,800 requests/s ten minutes
 * apart, so the ceilings' figure of minutes earlier could decide the verdict alone. The
 * server's resident memory is sampled meanwhile (workload 7).
 */
export async function taskRead(bench: Bench, f: Fixture, serverPid: number, ceilings: Ceilings | null) {
  bench.log('workload 1: GET /tasks/{key}, between two runs of the one-SELECT ceiling')
  const { result: { result, peakMiB }, beside } = await between(
    ceilings && (async () => (await ceilings.oneSelectAgain()).rps),
    () => peakRss(serverPid, () => runLoad(closedLoop(bench, f.base, taskReads(f)))),
  )
  const ratio = beside === null ? null : result.rps / beside.mean
  const section: Section = {
    title: '1. GET /tasks/{key}',
    columns: ['run', ...LOAD_COLUMNS, 'ratio to one-SELECT ceiling (ceilings)', 'ratio to one-SELECT ceiling (beside)'],
    rows: [[
      `${bench.sizes.connections} connections, ${f.taskKeys.length} tasks round-robin`, ...loadCells(result),
      ceilings ? pct(result.rps / ceilings.oneSelect.rps) : '', ratio === null ? '' : pct(ratio),
    ]],
    verdicts: [{
      target: '>= 50% of the one-SELECT ceiling',
      measured: ratio === null ? 'no ceiling' : `${pct(ratio)} (${num(result.rps)} vs ${num(beside!.mean)})`,
      met: ratio === null ? null : ratio >= 0.5,
    }],
    notes: beside ? [besideNote('The one-SELECT ceiling right before this run', 'requests/s', beside, ceilings!.oneSelect.rps)] : [],
  }
  return { result, peakMiB, section }
}
