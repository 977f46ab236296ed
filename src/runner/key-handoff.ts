// The runner's key leaves no trace in the process that runs agents. A process's environment as
// it was started stays readable in /proc/<pid>/environ for its whole life, whatever it changes
// afterwards, and Node cannot replace itself (no execve). So the process started as `shopfloor
// runner` reads the key (environment, config file or --api-key-file), starts the runner proper
// as its child with an environment without SHOPFLOOR_API_KEY, hands it the key over an IPC
// channel, and then only passes signals on and ends as its child ends. The child, which claims
// runs and starts agents, never had the key in its environment. The first process's own
// /proc/<pid>/environ would still show the key to every process of the same user (an agent run
// with --no-sandbox), so it blanks the key there once it has handed it on (scrub-environ.ts).
import { spawn } from 'node:child_process'
import { scrubEnviron } from './scrub-environ.ts'

/** Set in the child's environment: it takes its key from its parent. Holds no secret. */
const HANDOFF = 'SHOPFLOOR_RUNNER_KEY_HANDOFF'
const FORWARDED = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const

/** This process is the runner proper, started by runWithoutKey. */
export function isKeyChild(): boolean {
  return process.env[HANDOFF] === '1' && typeof process.send === 'function'
}

/**
 * In the runner proper: waits for its key from the parent. Should the parent die (killed with
 * SIGKILL) the channel closes and this process dies too, as the runner it stands for did.
 */
export function receiveKey(): Promise<string> {
  delete process.env[HANDOFF]
  process.once('disconnect', () => process.kill(process.pid, 'SIGKILL'))
  return new Promise((resolve) => {
    process.once('message', (message: { key?: unknown }) => {
      // The channel must not keep the runner alive once it is done; it still tells of the parent's death.
      process.channel?.unref()
      resolve(String(message?.key ?? ''))
    })
  })
}

/**
 * In the process started as `shopfloor runner`: starts the runner proper without the key in its
 * environment, hands the key over, passes on the signals that stop it, and ends as it ends.
 */
export function runWithoutKey(key: string): void {
  const env: NodeJS.ProcessEnv = { ...process.env, [HANDOFF]: '1' }
  delete env.SHOPFLOOR_API_KEY
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], { env, stdio: ['inherit', 'inherit', 'inherit', 'ipc'] })
  child.once('error', (err) => {
    process.stderr.write(`shopfloor runner: cannot start: ${err.message}\n`)
    process.exit(1)
  })
  child.send({ key })
  if (!scrubEnviron('SHOPFLOOR_API_KEY')) {
    process.stderr.write('shopfloor runner: the key could not be blanked in this process\'s /proc environment: processes of this user ' +
      'can read it there (agents run in the sandbox cannot); --api-key-file keeps it out of every environment\n')
  }
  const forward = (signal: NodeJS.Signals) => child.kill(signal)
  for (const signal of FORWARDED) process.on(signal, forward)
  child.once('exit', (code, signal) => {
    for (const name of FORWARDED) process.off(name, forward)
    if (signal) process.kill(process.pid, signal)
    else process.exit(code ?? 1)
  })
}
