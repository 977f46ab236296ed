// What the agents' sandbox costs a run's start: the time from starting an agent process to its
// end, for a process that does nothing, without and with the bubblewrap sandbox the runner puts
// around it (src/runner/sandbox.ts, the same command line a run gets), one after the other.
//
//   node --import tsx bench/sandbox-start.ts [--runs 30]
//
// Two agents: `/bin/sh -c true` (the process adapter's shell and nothing else) and `node -e 0`
// (what every CLI and the MCP server start with). Prints the median and 90th percentile in
// milliseconds of each, and the runner's check of bubblewrap at start. Under 20 seconds.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { prepareSandbox, type Sandbox, sandboxed } from '../src/runner/sandbox.ts'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '30' } } })
const runs = Number(values.runs)

const scratch = mkdtempSync(join(tmpdir(), 'shopfloor-bench-sandbox-'))
const cwd = mkdtempSync(join(scratch, 'work-'))
const home = mkdtempSync(join(scratch, 'home-'))
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home }

const confinement = await prepareSandbox({
  noSandbox: false, bwrap: 'bwrap', agentNetwork: true, workDir: cwd, agentRead: [], agentWrite: [],
  cacheDir: join(scratch, 'cache'), agentHomes: null, configDir: join(scratch, 'config'), configFile: null, apiKeyFile: null,
})
if (!confinement.sandbox) {
  console.error(`no sandbox: ${confinement.problem}`)
  process.exit(1)
}

/** Milliseconds from spawn to exit of one process, as the runner starts an agent (own process group). */
function once(sandbox: Sandbox | null, command: string, args: string[]): Promise<number> {
  const [file, argv] = sandboxed({ sandbox, cwd, home, env }, command, args)
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { cwd, env, detached: true, stdio: 'ignore' })
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`${command} exited with ${code}`))))
  })
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]
const agents: [string, string, string[]][] = [['sh -c true', '/bin/sh', ['-c', 'true']], ['node -e 0', process.execPath, ['-e', '0']]]

console.log(`bubblewrap check at start: ${confinement.checkMs} ms`)
console.log(`${'agent'.padEnd(12)} ${'without p50'.padStart(12)} ${'p90'.padStart(6)} ${'sandboxed p50'.padStart(14)} ${'p90'.padStart(6)} ${'cost p50'.padStart(9)}`)
for (const [name, command, args] of agents) {
  const plain: number[] = []
  const boxed: number[] = []
  await once(null, command, args) // warm the file cache
  await once(confinement.sandbox, command, args)
  // Alternated, so that the machine's other load falls on both alike.
  for (let i = 0; i < runs; i++) {
    plain.push(await once(null, command, args))
    boxed.push(await once(confinement.sandbox, command, args))
  }
  plain.sort((a, b) => a - b)
  boxed.sort((a, b) => a - b)
  const ms = (n: number) => n.toFixed(1).padStart(6)
  console.log(`${name.padEnd(12)} ${ms(percentile(plain, 0.5)).padStart(12)} ${ms(percentile(plain, 0.9))} ${ms(percentile(boxed, 0.5)).padStart(14)} ${ms(percentile(boxed, 0.9))} ${ms(percentile(boxed, 0.5) - percentile(plain, 0.5)).padStart(9)}`)
}
rmSync(scratch, { recursive: true, force: true })
