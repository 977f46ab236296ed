import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { peakRss, rssMiB, runLoad, startShopfloor } from '../lib/processes.ts'
import { LOAD_COLUMNS, loadCells, num, pct, type Section } from '../lib/report.ts'
import type { LoadResult } from '../lib/stats.ts'
import { type Bench, closedLoop } from './context.ts'
import { fixture, taskReads } from './fixture.ts'

export interface MemoryFigures {
  idleMiB: number
  loadedMiB: number
  load: LoadResult
  /** Read again after workload 1 and `seconds` without requests (embedded database only). */
  quiet?: { seconds: number; rssMiB: number }
}

/** Resident memory of the server once set up and quiet for a moment. */
export async function idleRss(pid: number): Promise<number> {
  await new Promise((r) => setTimeout(r, 1000))
  return rssMiB(pid) ?? 0
}

/**
 * Workload 7 on the embedded database: a server on PGlite in a fresh data directory, or in
 * `given` (left in place), the same fixture and workload 1; resident memory idle and at its
 * peak under load.
 */
export async function embeddedMemory(bench: Bench, given?: string): Promise<MemoryFigures> {
  const dataDir = given ?? fs.mkdtempSync(path.join(os.tmpdir(), 'shopfloor-bench-'))
  const server = await startShopfloor({ dataDir })
  try {
    bench.log('workload 7: embedded database')
    const f = await fixture(server.url, bench.sizes.readTasks)
    const idleMiB = await idleRss(server.pid)
    const { result, peakMiB } = await peakRss(server.pid, () => runLoad(closedLoop(bench, server.url, taskReads(f))))
    // A second after a burst of requests V8 still holds the heap the burst grew; once requests
    // stop for a while its memory reducer gives most of it back. Both readings are reported.
    await new Promise((r) => setTimeout(r, bench.sizes.quietSeconds * 1000))
    return { idleMiB, loadedMiB: peakMiB, load: result, quiet: { seconds: bench.sizes.quietSeconds, rssMiB: rssMiB(server.pid) ?? 0 } }
  } finally {
    await server.stop()
    if (!given) fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

/** 300 MB (the target's unit, 10^6 bytes) in MiB, the unit of the readings. */
const IDLE_LIMIT_MIB = 300e6 / 1048576

/**
 * The embedded database's targets: idle RSS under 300 MB at both idle readings (after set-up,
 * and after workload 1 and a while without requests), and workload 1 at 40% of PostgreSQL's.
 */
function embeddedVerdicts(figures: { postgres: MemoryFigures | null; embedded: MemoryFigures }) {
  const e = figures.embedded
  const idle = Math.max(e.idleMiB, e.quiet?.rssMiB ?? 0)
  const readings = `${e.idleMiB.toFixed(0)} MiB after set-up${e.quiet ? `, ${e.quiet.rssMiB.toFixed(0)} MiB after ${e.quiet.seconds} s without requests` : ''}`
  return [
    { target: 'embedded database: idle RSS < 300 MB (286 MiB)', measured: readings, met: idle < IDLE_LIMIT_MIB },
    ...(figures.postgres
      ? [{
          target: "embedded database: workload 1 >= 40% of PostgreSQL's",
          measured: `${pct(e.load.rps / figures.postgres.load.rps)} (${num(e.load.rps)} against ${num(figures.postgres.load.rps)} requests/s)`,
          met: e.load.rps >= 0.4 * figures.postgres.load.rps,
        }]
      : []),
  ]
}

export function memorySection(figures: { postgres: MemoryFigures | null; embedded: MemoryFigures }): Section {
  const quiet = figures.embedded.quiet ? `RSS after ${figures.embedded.quiet.seconds} s without requests MiB` : null
  const row = (name: string, m: MemoryFigures) => [
    name, m.idleMiB.toFixed(0), m.loadedMiB.toFixed(0), ...(quiet ? [m.quiet?.rssMiB.toFixed(0) ?? ''] : []), ...loadCells(m.load),
  ]
  return {
    title: '7. Memory of the server process',
    columns: ['database', 'idle RSS MiB', 'peak RSS under workload 1 MiB', ...(quiet ? [quiet] : []), ...LOAD_COLUMNS.map((c) => `workload 1 ${c}`)],
    rows: [...(figures.postgres ? [row('PostgreSQL', figures.postgres)] : []), row('embedded (PGlite)', figures.embedded)],
    verdicts: embeddedVerdicts(figures),
    notes: [
      'Resident set size of the `shopfloor serve` process (/proc/<pid>/status VmRSS), idle a second after set-up and sampled every 100 ms during workload 1; the embedded database lives inside that process, so its memory is included.',
      ...(quiet ? ['The embedded server is read once more after workload 1 and a while without requests: V8 gives back most of what a burst of requests grew once requests stop (its memory reducer), which is the memory of a server left open and unused.'] : []),
    ],
  }
}
