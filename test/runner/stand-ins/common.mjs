// Shared by the stand-in agent CLIs: each prints its CLI's real output format, following a plan
// carried in the prompt (`FAKE:{...}`), and records what it was given (arguments, environment,
// working folder, the configuration files in its home) for the test to check.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

/**
 * The plan: text (messages before the tools), tools [{name, input, output, error}], reply,
 * usage {input, cacheRead, cacheWrite, output, thoughts} (input uncached; thoughts where the CLI
 * reports them apart from output), cost (USD, where the CLI
 * reports one), model, session, sleep (seconds after the first message), fail
 * (rate_limit | overloaded | auth | error; with failText, that text instead), background (on exit, leave a process running that
 * holds its standard output and error, as a server started with `&` or an MCP server that
 * inherited them does: 'sleep', or 'ignore-term' for one that ignores the terminate signal; its
 * pid goes to `<run id>.background`), probe (paths whose reading and writing it records),
 * banner (text printed first without a line end, so that the first event is glued to it).
 */
export function begin(name, version, configFiles = () => []) {
  if (process.argv.includes('--version')) {
    process.stdout.write(`${version}\n`)
    process.exit(0)
  }
  const prompt = fs.readFileSync(0, 'utf8')
  const match = /FAKE:(\{.*\})/.exec(prompt)
  const plan = match ? JSON.parse(match[1]) : {}
  const home = process.env.HOME
  const files = {}
  for (const file of configFiles(process.argv.slice(2))) {
    files[file] = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null
  }
  const homeEntries = fs.readdirSync(home)
  // plan.probe: paths (relative to HOME, or absolute) whose reading and writing the test checks.
  const probes = {}
  for (const file of plan.probe ?? []) {
    const at = path.resolve(home, file)
    const result = { read: null, write: null }
    try { result.read = fs.readFileSync(at, 'utf8') } catch (err) { result.read = `error ${err.code}` }
    try { fs.appendFileSync(at, 'x'); result.write = 'written' } catch (err) { result.write = `error ${err.code}` }
    probes[file] = result
  }
  // The skills Claude Code would load: every file under ~/.claude/skills, with its text.
  const skillsDir = path.join(home, '.claude', 'skills')
  const skills = {}
  if (fs.existsSync(skillsDir)) {
    for (const file of fs.readdirSync(skillsDir, { recursive: true })) {
      const full = path.join(skillsDir, file)
      if (fs.statSync(full).isFile()) skills[file] = fs.readFileSync(full, 'utf8')
    }
  }
  // A kept home remembers earlier runs.
  fs.writeFileSync(path.join(home, `.${name}-ran`), String(Date.now()))
  const runId = process.env.SHOPFLOOR_RUN_ID
  const out = process.env.STANDIN_OUT
  fs.writeFileSync(path.join(out, `${runId}.tmp`), JSON.stringify({ cli: name, argv: process.argv.slice(2), env: process.env, cwd: process.cwd(), prompt, files, homeEntries, skills, probes }))
  fs.renameSync(path.join(out, `${runId}.tmp`), path.join(out, `${runId}.json`))
  const usage = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, thoughts: 0, ...plan.usage }
  if (plan.banner) process.stdout.write(plan.banner)
  return {
    plan,
    prompt,
    usage,
    session: plan.session ?? `${name}-session-${runId.slice(0, 8)}`,
    model: plan.model ?? 'model-x',
    emit: (event) => process.stdout.write(`${JSON.stringify(event)}\n`),
    pause: () => new Promise((resolve) => setTimeout(resolve, (plan.sleep ?? 0) * 1000)),
    exit: (code) => process.stdout.write('', () => {
      if (plan.background) leaveRunning(plan.background, path.join(out, `${runId}.background`))
      process.exit(code)
    }),
  }
}

/** Starts a process that outlives this one, holding its standard output and error. */
function leaveRunning(kind, pidFile) {
  const trap = kind === 'ignore-term' ? "trap '' TERM; " : ''
  const child = spawn('/bin/sh', ['-c', `${trap}echo $$ > "${pidFile}"; exec sleep 30`], { stdio: ['ignore', 'inherit', 'inherit'] })
  child.unref()
  // Its pid is written before this process exits: the test reads it once the run is over.
  while (!fs.existsSync(pidFile) || !fs.readFileSync(pidFile, 'utf8').trim()) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10)
}

/** Messages the real services give for each failure. */
export const FAILURES = {
  rate_limit: 'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization"}}',
  overloaded: 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
  auth: 'Invalid API key · Please run /login',
  error: 'Tool execution crashed: ENOSPC: no space left on device',
}
