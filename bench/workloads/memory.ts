import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { peakRss, rssMiB, runLoad, startShopfloor } from '../lib/processes.ts'
import { LOAD_COLUMNS, loadCells, type Section } from '../lib/report.ts'
import type { LoadResult } from '../lib/stats.ts'
import { type Bench, closedLoop } from './context.ts'
import { fixture, taskReads } from './fixture.ts'

export interface MemoryFigures {
  idleMiB: number
  loadedMiB: number
  load: LoadResult
}

/** Resident memory of the server once set up and quiet for a moment. */
export async function idleRss(pid: number): Promise<number> {
  await new Promise((r) => setTimeout(r, 1000))
  return rssMiB(pid) ?? 0
}

/**
 * Workload 7 on the embedded database: a server on PGlite in a fresh data directory, the same
 * fixture and workload 1; resident memory idle and at its peak under load.
 */
export async function embeddedMemory(bench: Bench): Promise<MemoryFigures> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shopfloor-bench-'))
  const server = await startShopfloor({ dataDir })
  try {
    bench.log('workload 7: embedded database')
    const f = await fixture(server.url, bench.sizes.readTasks)
    const idleMiB = await idleRss(server.pid)
    const { result, peakMiB } = await peakRss(server.pid, () => runLoad(closedLoop(bench, server.url, taskReads(f))))
    return { idleMiB, loadedMiB: peakMiB, load: result }
  } finally {
    await server.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

export function memorySection(figures: { postgres: MemoryFigures | null; embedded: MemoryFigures }): Section {
  const row = (name: string, m: MemoryFigures) => [name, m.idleMiB.toFixed(0), m.loadedMiB.toFixed(0), ...loadCells(m.load)]
  return {
    title: '7. Memory of the server process',
    columns: ['database', 'idle RSS MiB', 'peak RSS under workload 1 MiB', ...LOAD_COLUMNS.map((c) => `workload 1 ${c}`)],
    rows: [...(figures.postgres ? [row('PostgreSQL', figures.postgres)] : []), row('embedded (PGlite)', figures.embedded)],
    verdicts: [],
    notes: [
      'Resident set size of the `shopfloor serve` process (/proc/<pid>/status VmRSS), idle after set-up and sampled every 100 ms during workload 1; the embedded database lives inside that process, so its memory is included.',
    ],
  }
}
