import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { ROOT } from '../lib/processes.ts'
import { dropDatabase, recreateDatabase } from '../lib/postgres.ts'
import type { Section } from '../lib/report.ts'
import type { Bench } from './context.ts'

const SCRIPT = path.join(ROOT, 'bench', 'events-fanout.ts')

/** Runs a script and answers its stdout, failing on a non-zero exit. */
function output(args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout!.on('data', (d) => (out += d))
    child.stderr!.on('data', (d) => (err = (err + d).slice(-5000)))
    // 'close', not 'exit': at 'exit' the last lines written may still wait unread in the pipe.
    child.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`events-fanout exited ${code}: ${err}`))))
  })
}

/**
 * Workload 5: `streams` concurrent event streams on one company, measured by the event
 * stream's own fan-out benchmark (bench/events-fanout.ts), here on PostgreSQL. Its report
 * lines are parsed into the table and kept verbatim below it.
 */
export async function eventStreams(bench: Bench): Promise<Section> {
  const title = `5. ${bench.sizes.streams.toLocaleString('en-US')} concurrent event streams`
  if (!fs.existsSync(SCRIPT)) {
    return { title, columns: [], rows: [], verdicts: [{ target: 'streams open and receive every event', measured: 'bench/events-fanout.ts missing', met: null }], notes: [] }
  }
  bench.log(`workload 5: ${bench.sizes.streams} event streams`)
  const events = bench.sizes.mode === 'smoke' ? 10 : 200
  const url = await recreateDatabase(bench.pg, bench.db('events'))
  let text: string
  try {
    text = await output(
      ['--expose-gc', '--import', 'tsx', SCRIPT, '--streams', String(bench.sizes.streams), '--events', String(events), '--rate', '50'],
      { DATABASE_URL: url },
    )
  } finally {
    await dropDatabase(bench.pg, bench.db('events'))
  }
  const lines = text.trim().split('\n')
  const rows: string[][] = []
  let missing = 0
  for (const line of lines) {
    const phase = /^(.+?): (\d+) deliveries, (\d+) missing, commit to receipt p50 (-?[\d.]+) ms, p99 (-?[\d.]+) ms/.exec(line)
    if (phase) {
      missing += Number(phase[3])
      rows.push([phase[1], phase[2], phase[3], phase[4], phase[5]])
    }
  }
  const rate = /(\d+) events\/s delivered/.exec(text)
  return {
    title,
    columns: ['phase', 'deliveries', 'missing', 'commit-to-receipt p50 ms', 'p99 ms'],
    rows,
    verdicts: [
      {
        target: `${bench.sizes.streams.toLocaleString('en-US')} streams open and every event delivered to each`,
        measured: rows.length ? `${missing} missing${rate ? `, burst ${Number(rate[1]).toLocaleString('en-US')} deliveries/s` : ''}` : 'no figures parsed',
        met: rows.length ? missing === 0 : null,
      },
    ],
    notes: [`${events} events per phase. The fan-out benchmark's own report:`, ...lines.map((l) => `\`${l.trim()}\``)],
  }
}
