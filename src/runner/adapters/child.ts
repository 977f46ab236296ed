// Helpers for agent processes: each runs detached, as the leader of its own process group, so
// that stopping it also stops whatever it started.

/** Sends a signal to the agent's whole process group. */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return
  try {
    process.kill(-pid, signal)
  } catch {
    // already gone
  }
}

/** Calls onLine for each line of a stream (the last one even without a newline). */
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
  stream.on('end', () => {
    if (pending) onLine(pending)
    pending = ''
  })
}

/** Whether the agent was stopped, and the release to call once it has exited. */
export interface Stopper {
  readonly stopped: boolean
  release(): void
}

/**
 * Stops the agent when `signal` aborts (a cancelled run, a spend cap, the runner shutting
 * down): the terminate signal to its group at once, the kill after `killAfterMs`.
 */
export function stopOnAbort(pid: number | undefined, signal: AbortSignal, killAfterMs: number): Stopper {
  let stopped = false
  let killTimer: NodeJS.Timeout | undefined
  const stop = () => {
    stopped = true
    signalGroup(pid, 'SIGTERM')
    killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), killAfterMs)
  }
  if (signal.aborted) stop()
  else signal.addEventListener('abort', stop, { once: true })
  return {
    get stopped() {
      return stopped
    },
    release() {
      clearTimeout(killTimer)
      signal.removeEventListener('abort', stop)
    },
  }
}
