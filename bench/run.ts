// The benchmark harness: `npm run bench` (full), `npm run bench:quick` (under 8 minutes).
//
//   node --import tsx bench/run.ts [--mode full|quick|smoke] [--pg URL] [--out FILE]
//                                  [--only 1,2,...] [--reseed] [--no-keep] [--db-prefix NAME]
//                                  [--embedded-only] [--embedded-data-dir DIR]
//
// Measures Shopfloor on a local PostgreSQL server (default postgres://postgres@127.0.0.1:5432)
// against the same machine's ceilings, and writes a Markdown report (default bench/RESULTS.md).
// Every server and every load generator is its own process. docs/benchmarks.md explains it all.
import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { busyness, describeMachine } from './lib/machine.ts'
import { ROOT, startSharedGenerator, startShopfloor, stopSharedGenerator } from './lib/processes.ts'
import { checkLocal, dropDatabase, recreateDatabase, serverDescription } from './lib/postgres.ts'
import { renderReport, type Section } from './lib/report.ts'
import { type Mode, SIZES } from './sizes.ts'
import { measureCeilings } from './workloads/ceilings.ts'
import type { Bench, Ceilings } from './workloads/context.ts'
import { eventStreams } from './workloads/event-streams.ts'
import { fixture } from './workloads/fixture.ts'
import { idle } from './workloads/idle.ts'
import { loginStorm } from './workloads/login-storm.ts'
import { promptTokens } from './workloads/prompt-tokens.ts'
import { embeddedMemory, idleRss, type MemoryFigures, memorySection } from './workloads/memory.ts'
import { runsCycle } from './workloads/runs-cycle.ts'
import { scale } from './workloads/scale.ts'
import { taskCreate } from './workloads/task-create.ts'
import { taskList } from './workloads/task-list.ts'
import { taskRead } from './workloads/task-read.ts'
import { timeToStart } from './workloads/time-to-start.ts'
import { dashboardCell } from './workloads/dashboard-cell.ts'
import { createSizes } from './workloads/create-sizes.ts'

const ANALYSIS_HEADING = '## Analysis'

const { values: args } = parseArgs({
  options: {
    mode: { type: 'string', default: 'full' },
    pg: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    out: { type: 'string', default: path.join(ROOT, 'bench', 'RESULTS.md') },
    only: { type: 'string' },
    reseed: { type: 'boolean', default: false },
    'no-keep': { type: 'boolean', default: false },
    'db-prefix': { type: 'string', default: 'sf_bench' },
    'embedded-only': { type: 'boolean', default: false },
    'embedded-data-dir': { type: 'string' },
  },
})

if (!(args.mode! in SIZES)) throw new Error(`--mode is one of ${Object.keys(SIZES).join(', ')}`)
checkLocal(args.pg!)
const only = new Set((args.only ?? '1,2,3,4,5,6,7,8,9,10,11,12,13').split(',').map(Number))
const embeddedOnly = args['embedded-only']!
const wants = (n: number) => only.has(n) && (!embeddedOnly || n === 7)

const bench: Bench = {
  sizes: SIZES[args.mode as Mode],
  pg: args.pg!,
  db: (part) => (part ? `${args['db-prefix']}_${part}` : args['db-prefix']!),
  log: (message) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`),
}

const startedAt = new Date()
const busyBefore = busyness()
const sections: Section[] = []
let ceilings: Ceilings | null = null
let closeCeilings = async () => {}
if (bench.sizes.oneGenerator) startSharedGenerator()

if (wants(1) || wants(2) || wants(3)) {
  const measured = await measureCeilings(bench)
  ceilings = measured.ceilings
  closeCeilings = measured.close
  sections.push(measured.section)
}

// Workloads 1, 2, 3, 6, 8 and the PostgreSQL half of 7 share one server on a fresh database;
// in smoke mode 4 and 9 too, which otherwise start their own (bench/sizes.ts, oneServer).
let postgresMemory: MemoryFigures | null = null
const onSameServer = (n: number) => wants(n) && bench.sizes.oneServer
if (!embeddedOnly && ([1, 2, 3, 6, 7, 8, 10].some(wants) || onSameServer(4) || onSameServer(9))) {
  const url = await recreateDatabase(bench.pg, bench.db())
  const server = await startShopfloor({ databaseUrl: url })
  try {
    // Before anything else: workload 4's seed counts every task of the database as its own.
    if (onSameServer(4)) sections.push(await scale(bench, args.reseed!, { server, url }))
    const f = await fixture(server.url, bench.sizes.readTasks)
    const idleMiB = await idleRss(server.pid)
    // Workload 1 also gives workload 6 its quiet figure and workload 7 its loaded memory.
    const read = [1, 6, 7].some(wants) ? await taskRead(bench, f, server.pid, ceilings) : null
    if (read && wants(1)) sections.push(read.section)
    if (read) postgresMemory = { idleMiB, loadedMiB: read.peakMiB, load: read.result }
    if (wants(8)) sections.push(await taskList(bench, f, url, server.pid, ceilings))
    if (wants(2)) sections.push(await taskCreate(bench, f, url, ceilings))
    if (wants(3)) sections.push(await runsCycle(bench, f, url, server.pid, ceilings))
    if (read && wants(6)) sections.push(await loginStorm(bench, f, read.result))
    if (wants(10)) sections.push(await promptTokens(bench, { server, url }))
    if (onSameServer(9)) sections.push(await idle(bench, { server, url }))
  } finally {
    await server.stop()
    await dropDatabase(bench.pg, bench.db())
  }
}
// Workloads 1 and 2 measured their ceilings again beside themselves (Ceilings.oneSelectAgain,
// tpcbAgain). A failed run leaves the database to the next, which recreates it.
await closeCeilings()

if (wants(4) && !onSameServer(4)) {
  sections.push(await scale(bench, args.reseed!))
  if (args['no-keep']) await dropDatabase(bench.pg, bench.db('scale'))
}
if (wants(5)) sections.push(await eventStreams(bench))
if (wants(11)) sections.push(await dashboardCell(bench))
if (wants(12)) sections.push(await createSizes(bench))
if (wants(13)) sections.push(await timeToStart(bench))
if (wants(9) && !onSameServer(9)) sections.push(await idle(bench))
if (wants(7)) {
  sections.push(memorySection({ postgres: postgresMemory, embedded: await embeddedMemory(bench, args['embedded-data-dir']) }))
}
await stopSharedGenerator()

// Sections in the order of the workloads, ceilings first.
sections.sort((a, b) => (a.title.startsWith('Ceilings') ? -1 : b.title.startsWith('Ceilings') ? 1 : a.title.localeCompare(b.title, 'en', { numeric: true })))
const report = renderReport({
  mode: bench.sizes.mode,
  startedAt,
  finishedAt: new Date(),
  machine: describeMachine(embeddedOnly ? 'not used (--embedded-only)' : await serverDescription(bench.pg)),
  busyBefore,
  busyAfter: busyness(),
  settings: [
    `Mode ${bench.sizes.mode}: ${bench.sizes.seconds} s measured per load run after ${bench.sizes.warmup} s of warm-up, ${bench.sizes.connections} connections unless a workload says otherwise.`,
    'Load generator: bench/load/generator.ts, a Node.js process of its own (keep-alive connections of an undici pool, closed loop); the same generator and settings measure the ceilings.',
    'Server: `shopfloor serve` with ENVIRONMENT=production, LOG_LEVEL=warn (no per-request log lines), SCHEDULER=off, a pool of 10 PostgreSQL connections; every workload request carries an API key.',
    'The two cores are shared by the server, the load generator and PostgreSQL, for the ceilings as for the workloads: the ratios compare like with like, the absolute figures are this machine only.',
  ],
  sections,
})
// The hand-written analysis at the end of an earlier report (causes of missed targets, fixes)
// is kept: the run rewrites the figures above it.
const previous = fs.existsSync(args.out!) ? fs.readFileSync(args.out!, 'utf8') : ''
const analysis = previous.indexOf(ANALYSIS_HEADING)
fs.writeFileSync(args.out!, analysis === -1 ? report : `${report}\n${previous.slice(analysis)}`)
bench.log(`report written to ${path.relative(process.cwd(), args.out!) || args.out}`)
