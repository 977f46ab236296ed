// The benchmark harness still runs end to end: its smallest size, every workload, a report.
// The figures of this size mean nothing and are not checked; that the report has them is.
// With TEST_DATABASE_URL the PostgreSQL workloads run against that server (in databases of
// their own, dropped afterwards); without it only the embedded-database workload can run.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { embeddedDataDir, TEST_DATABASE_URL } from '../helpers.ts'

const ROOT = path.resolve(import.meta.dirname, '..', '..')
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shopfloor-bench-smoke-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

/**
 * The harness at smoke size. Its embedded-database server starts on a copy of the test run's
 * migrated database (as the other tests' servers do) instead of creating one, which would cost
 * more than the rest of workload 7.
 */
function harness(args: string[]): Promise<{ code: number | null; output: string }> {
  const common = ['--mode', 'smoke', '--embedded-data-dir', embeddedDataDir()]
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'run.ts'), ...common, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout!.on('data', (d) => (output += d))
    child.stderr!.on('data', (d) => (output += d))
    child.once('exit', (code) => resolve({ code, output }))
  })
}

/** The rows of the report's Targets table: [workload, target, measured, verdict]. */
function targets(report: string): string[][] {
  const table = report.split('## Targets')[1].split('\n## ')[0]
  return table
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| workload') && !l.startsWith('| ---'))
    .map((l) => l.slice(2, -2).split(' | '))
}

async function onPostgres(databaseUrl: string) {
  const out = path.join(dir, 'postgres.md')
  const prefix = `sf_bench_smoke_${process.pid}`
  const { code, output } = await harness(['--pg', databaseUrl, '--out', out, '--no-keep', '--db-prefix', prefix])
  expect(code, output).toBe(0)
  // Every database of the run is gone, the ceilings' one (kept for workloads 1 and 2) too.
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const { rows } = await client.query('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [prefix])
    expect(rows).toEqual([])
  } finally {
    await client.end()
  }
  const report = fs.readFileSync(out, 'utf8')
  expect(report).toMatch(/^# Shopfloor benchmark results/)
  expect(report).toMatch(/\| PostgreSQL \| \d+\.\d+/)
  for (const title of ['Ceilings of this machine', '1. GET /tasks/{key}', '2. POST /tasks', '3. Runners', '4. Scale', '5. ', '6. Sign-in storm', '7. Memory', '8. Task list', '9. Idle', '10. What a run is told', '11. Dashboard of a company', '12. Creates with an assignee, by company size', '13. Time to start']) {
    expect(report).toContain(`## ${title}`)
  }
  // The bare runner cycle ran the runner loops to the end and workload 3 is set against it.
  expect(report).toMatch(/\| bare Fastify, runner cycle: three one-row updates, \d+ runners \| [\d,.]+ \|/)
  expect(report).toMatch(/finished cycles per second, 0 double claims/)
  expect(report).toMatch(/\| [\d,.]+ \| 0 \| \d+% \|\n/)
  // Each step of a run has its server CPU and commits.
  for (const step of ['claim', 'report running', 'report finish']) expect(report).toMatch(new RegExp(`\\| ${step} .*\\| \\d+ \\| \\d+\\.\\d+ \\| -?\\d+\\.\\d+ \\|`))
  const rows = targets(report)
  // Every task workload 2 made brought its queued run and its audit event.
  const made = /held (\d+) tasks made by this workload, (\d+) assignment runs and (\d+) task-created audit events/.exec(report)
  expect(made, 'workload 2 counts what it made').not.toBeNull()
  expect(Number(made![1])).toBeGreaterThan(0)
  expect([made![2], made![3]]).toEqual([made![1], made![1]])
  // Workloads 1 and 2 are set against their ceilings measured right before and after them.
  // (Figures under 100 have a decimal: at this size, beside the other test files, they can be.)
  expect(report).toMatch(/The one-SELECT ceiling right before this run: [\d,.]+ requests\/s; right after: [\d,.]+; "beside" compares with their mean/)
  expect(report).toMatch(/right before the spread run: [\d,.]+ TPS; right after: [\d,.]+; "beside" compares with their mean/)
  // Every target of workloads 1 to 9 has a verdict from a measurement, none "not measured".
  for (const n of ['1.', '2.', '3.', '4.', '5.', '6.', '7.', '8.', '9.', '10.', '13.']) expect(rows.some((r) => r[0].startsWith(n)), n).toBe(true)
  // The runners' target is the bare cycle of the same run; the embedded database's are its idle
  // memory at both readings and its speed against PostgreSQL's.
  // (a figure, no longer a target; creates against pgbench likewise).
  expect(report).toMatch(/Finished runs\/s against the bare runner cycle of the same run: \d+% \([\d,.]+ against [\d,.]+\/s\)\. A figure, not a target/)
  expect(report).toMatch(/Across companies against pgbench's default script beside it: \d+% \([\d,.]+ vs [\d,.]+\)\. A figure, not a target/)
  expect(rows.map((r) => r[1])).not.toContain('>= 75% of the bare runner cycle measured in the same run')
  // What Shopfloor adds to a run's prompt, measured in tokens for a small and a large company.
  expect(rows.find((r) => r[1] === "large company's prompt <= 2x the small company's")?.[2]).toMatch(/^\d\.\d\dx \([\d,]+ against [\d,]+ tokens\)$/)
  expect(rows.find((r) => r[1] === 'embedded database: idle RSS < 300 MB (286 MiB)')?.[2]).toMatch(/^\d+ MiB after set-up, \d+ MiB after 1 s without requests$/)
  expect(rows.find((r) => r[1] === "embedded database: workload 1 >= 40% of PostgreSQL's")?.[2]).toMatch(/^\d+% \([\d,.]+ against [\d,.]+ requests\/s\)$/)
  // A failure shows the workload's whole section: its notes keep what the measuring script printed.
  const section = (row: string[]) => report.split('\n## ').find((s) => s.startsWith(row[0].split(' ')[0])) ?? ''
  for (const row of rows) expect(['met', 'MISSED'], `${row.join(' | ')}\n## ${section(row)}`).toContain(row[3])
  // The dashboard and creates cells have their CPU per answer; time to start has each step.
  expect(report).toMatch(/\| \d+ connections? \| [\d,.]+ \| .* \| [\d,]+ \| \d+\.\d{3} \| \d+\.\d{3} \|/)
  expect(report).toMatch(/\| company of [\d,]+ tasks \| [\d,.]+ \| .* \| \d+\.\d{3} \| \d+\.\d{3} \| row locks \d+%/)
  // The runner may hear of the run before the POST's answer reaches the client: a negative figure.
  expect(report).toMatch(/\| 1 agent \| \d+ \| -?[\d.]+ \/ -?[\d.]+ \|/)
  // The runners never got one run twice, whatever the speed.
  expect(rows.find((r) => r[1] === 'zero double claims')?.[3]).toBe('met')
  // Memory has figures on both databases.
  expect(report).toMatch(/\| PostgreSQL \| \d+ \| \d+ \|/)
  // The embedded server's memory is read again after a while without requests.
  expect(report).toMatch(/\| embedded \(PGlite\) \| \d+ \| \d+ \| \d+ \|/)
  expect(report).toContain('| RSS after 1 s without requests MiB |')
}

async function embeddedOnly() {
  const out = path.join(dir, 'embedded.md')
  const { code, output } = await harness(['--embedded-only', '--out', out])
  expect(code, output).toBe(0)
  const report = fs.readFileSync(out, 'utf8')
  expect(report).toContain('## Machine')
  expect(report).toContain('| PostgreSQL | not used (--embedded-only) |')
  expect(report).toMatch(/\| embedded \(PGlite\) \| \d+ \| \d+ \| [\d.,]+ \|/)
}

describe('benchmark harness, smoke size', () => {
  // On PostgreSQL every workload; without a server only the embedded-database one can run.
  it(`runs end to end and writes a report with each figure (${TEST_DATABASE_URL ? 'PostgreSQL' : 'embedded only'})`, async () => {
    if (TEST_DATABASE_URL) await onPostgres(TEST_DATABASE_URL)
    else await embeddedOnly()
  }, 360_000)
})
