// What recording a run's work costs on a large repository: 10,000 files and 1,000 commits.
//
//   node --import tsx bench/work-products.ts [--files 10000] [--commits 1000] [--rounds 3]
//
// Builds a bare remote with git fast-import (the default branch: --commits commits, the last
// holding --files files in 100 folders), then for each round: a worktree on a new task branch
// (src/runner/workspace.ts, as a run gets it), an "agent" that changes 20 files, adds 5 and
// deletes 2 without committing, and the runner's recordWork (src/runner/work/record.ts): commit of
// the leftovers, numstat, name-status, log and the patch; then pushBranch. Reports each part's
// milliseconds (median over the rounds); the budget is one second for recordWork (the push is
// reported apart: it is the remote's time as much as ours).
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import pino from 'pino'
import type { RunContext } from '../src/client/index.ts'
import { agentIdentity, pushBranch, recordWork } from '../src/runner/work/record.ts'
import { prepareWorkspace } from '../src/runner/workspace.ts'

const { values } = parseArgs({ options: { files: { type: 'string' }, commits: { type: 'string' }, rounds: { type: 'string' } } })
const FILES = Number(values.files ?? 10_000)
const COMMITS = Number(values.commits ?? 1_000)
const ROUNDS = Number(values.rounds ?? 3)

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'shopfloor-bench-work-'))
const remote = path.join(root, 'remote.git')
execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote])

/** The history as a fast-import stream: each commit changes a slice of the files, the first adds them all. */
function history(): string {
  const parts: string[] = []
  const line = (i: number, version: number) => `export const value${i} = ${version}\n`
  for (let c = 0; c < COMMITS; c++) {
    const message = `Commit ${c}`
    parts.push(`commit refs/heads/main\ncommitter Bench <bench@example.test> ${1_700_000_000 + c} +0000\ndata ${message.length}\n${message}\n`)
    const touched = c === 0 ? Array.from({ length: FILES }, (_, i) => i) : Array.from({ length: 10 }, (_, k) => (c * 10 + k) % FILES)
    for (const i of touched) {
      const text = line(i, c)
      parts.push(`M 100644 inline src/dir${i % 100}/file${i}.ts\ndata ${Buffer.byteLength(text)}\n${text}`)
    }
    parts.push('\n')
  }
  return parts.join('')
}

const built = performance.now()
execFileSync('git', ['--git-dir', remote, 'fast-import', '--quiet'], { input: history(), maxBuffer: 1 << 30 })
console.log(`remote: ${FILES} files, ${COMMITS} commits, built in ${Math.round(performance.now() - built)} ms`)

const log = pino({ level: 'warn' })
const cacheDir = path.join(root, 'cache')
const timings: Record<string, number[]> = { prepare: [], record: [], push: [] }
for (let round = 0; round < ROUNDS; round++) {
  const context = {
    run: { id: `00000000-0000-4000-8000-00000000000${round}` },
    agent: { id: '11111111-1111-4111-8111-111111111111', name: 'Bench Agent' },
    task: { key: `BEN-${round + 1}` },
    project: { repository: `file://${remote}`, default_branch: 'main', checks: [] },
  } as unknown as RunContext
  let t = performance.now()
  if (process.env.BENCH_TRACE) console.log("round", round)
  const ws = await prepareWorkspace(context, { workDir: root, cacheDir, allowLocalRepositories: true }, log)
  timings.prepare.push(performance.now() - t)
  // The agent's leftovers.
  for (let k = 0; k < 20; k++) fs.appendFileSync(path.join(ws.cwd, `src/dir${k}/file${k * 100 + k}.ts`), `// changed in round ${round}\n`)
  for (let k = 0; k < 5; k++) fs.writeFileSync(path.join(ws.cwd, `added-${k}.ts`), `export const added = ${k}\n`)
  for (let k = 0; k < 2; k++) fs.rmSync(path.join(ws.cwd, `src/dir${50 + k}/file${50 + k}.ts`))
  t = performance.now()
  const work = await recordWork(ws.cwd, ws.repository!, agentIdentity(context.agent), 'Bench changes')
  timings.record.push(performance.now() - t)
  t = performance.now()
  const pushError = await pushBranch(ws.cwd, ws.repository!)
  timings.push.push(performance.now() - t)
  if (work.changes.files.length !== 27 || pushError) throw new Error(`unexpected changes: ${JSON.stringify(work.changes).slice(0, 300)}`)
  await ws.dispose()
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
for (const [part, xs] of Object.entries(timings)) {
  console.log(`${part.padEnd(8)} median ${Math.round(median(xs))} ms (of ${xs.map((x) => Math.round(x)).join(', ')})`)
}
console.log(`recordWork budget 1000 ms: ${median(timings.record) < 1000 ? 'within' : 'OVER'}`)
fs.rmSync(root, { recursive: true, force: true })
