// Helpers for agent processes: each runs detached, as the leader of its own process group, so
// that stopping it also stops whatever it started.
import type { ChildProcess } from 'node:child_process'

/**
 * How long the agent's output pipes may stay open once the agent has exited. What it wrote is in
 * the pipes by then and is read within milliseconds; a pipe still open after that is held by
 * something it left running in the background that inherited it (a dev server started with
 * `&`), and waiting for that would keep the run going until its lease ran out.
 */
export const OUTPUT_GRACE_MS = 2000

/** Sends a signal to the agent's whole process group. */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return
  try {
    process.kill(-pid, signal)
  } catch {
    // already gone
  }
}

/**
 * Stops a process group: the terminate signal at once, the kill after `killAfterMs` for
 * whatever ignored it.
 */
function stopGroup(pid: number | undefined, killAfterMs: number): NodeJS.Timeout {
  signalGroup(pid, 'SIGTERM')
  return setTimeout(() => signalGroup(pid, 'SIGKILL'), killAfterMs)
}

/**
 * Calls onLine for each line of a stream, the last one even without a newline: at its end, or
 * when it is closed before its end (output cut off once the agent has exited).
 */
export function splitLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let pending = ''
  stream.setEncoding('utf8')
  stream.on('data', (chunk: string) => {
    pending += chunk
    let newline: number
    while ((newline = pending.indexOf('\n')) >= 0) {
      onLine(pending.slice(0, newline).replace(/\r$/, ''))
      pending = pending.slice(newline + 1)
    }
  })
  const flush = () => {
    if (pending) onLine(pending)
    pending = ''
  }
  stream.on('end', flush)
  stream.on('close', flush)
}

/** How the agent ended. */
export interface AgentExit {
  code: number | null
  signal: NodeJS.Signals | null
  /** It could not be started. */
  spawnError?: NodeJS.ErrnoException
  /** The run stopped it (`abort` fired). */
  stopped: boolean
}

/** The abort reason's message of a run stopped at a spend limit (execution.ts). */
export const SPEND_STOP = 'spend'

/**
 * Waits for the agent to end, stopping it when `abort` fires (a cancelled run, a spend cap, the
 * runner shutting down). The run ends with the agent: once it has exited, its process group is
 * stopped too, so that nothing it started in the background outlives the run (in a worktree and
 * home removed after it, with a credential that expires with it); what it wrote is read for up
 * to OUTPUT_GRACE_MS, then its pipes are closed whoever still holds them.
 */
export async function superviseAgent(child: ChildProcess, abort: AbortSignal, killAfterMs: number): Promise<AgentExit> {
  let stopped = false
  let killTimer: NodeJS.Timeout | undefined
  const stop = () => {
    stopped = true
    // A stop at a spend limit is a kill, sent here and now: in the grace a terminate signal gives,
    // or until a timer of a busy runner fires, a CLI that handles the terminate signal and
    // finishes its step first (OpenCode) gets one more paid answer past the limit (seen: an
    // answer received and recorded 1.6 s after the stop, when the kill came from a 0-ms timer).
    const spend = abort.reason instanceof Error && abort.reason.message === SPEND_STOP
    if (spend) signalGroup(child.pid, 'SIGKILL')
    else killTimer = stopGroup(child.pid, killAfterMs)
  }
  if (abort.aborted) stop()
  else abort.addEventListener('abort', stop, { once: true })

  const exit = await new Promise<Omit<AgentExit, 'stopped'>>((resolve) => {
    child.once('error', (err) => resolve({ code: null, signal: null, spawnError: err }))
    child.once('exit', () => {
      clearTimeout(killTimer)
      // The kill for what ignores the terminate signal must not hold the runner open; the group
      // is gone by then unless something in it ignored the signal.
      stopGroup(child.pid, killAfterMs).unref()
      const cutOff = setTimeout(() => {
        child.stdout?.destroy()
        child.stderr?.destroy()
      }, OUTPUT_GRACE_MS)
      child.once('close', (code, signal) => {
        clearTimeout(cutOff)
        resolve({ code, signal })
      })
    })
  })
  abort.removeEventListener('abort', stop)
  return { ...exit, stopped }
}
