// Which CLI sessions a kept agent home (--agent-homes) holds. The next run of an agent on the
// same task resumes the session of its last run there, and its transcript says so. A session made
// on another runner's machine is not in this home, and a CLI asked to resume it fails the run:
// such a run starts a new session instead, saying so. The home keeps the ids of the sessions
// made in it, one a line, in .shopfloor/sessions.
import { join } from 'node:path'
import { readHomeFile, writeHomeFile } from './home-files.ts'

const FILE = join('.shopfloor', 'sessions')
/** Ids kept at most: the file is read at every run's start. */
const KEEP = 1000

function known(home: string): string[] {
  return (readHomeFile(home, FILE) ?? '').split('\n').filter(Boolean)
}

/** Notes a session the CLI made in this home. */
export function keepSession(home: string, sessionId: string): void {
  const ids = known(home)
  if (ids.includes(sessionId)) return
  // Written whole (never appended through a link the agent left: home-files.ts), the newest KEEP.
  writeHomeFile(home, FILE, `${[...ids, sessionId].slice(-KEEP).join('\n')}\n`)
}

export interface Resume {
  /** The session to resume, or null for a new one. */
  session: string | null
  /** What the transcript says about it, or null when there was no earlier session. */
  note: string | null
}

/**
 * Whether to resume the session of the agent's last run on the task (`last`), kept in `home`;
 * with `fresh` (a person asked for it) never.
 */
export function resumeFrom(last: { runId: string; sessionId: string } | null, home: string, fresh = false): Resume {
  if (!last) return { session: null, note: null }
  if (fresh) return { session: null, note: `A new session, as asked: the session of run ${last.runId} is not resumed.\n` }
  if (known(home).includes(last.sessionId)) {
    return { session: last.sessionId, note: `Continues the session of run ${last.runId}.\n` }
  }
  return {
    session: null,
    note: `The session of run ${last.runId} is not kept on this runner (it ran elsewhere, or its home was cleared): starting a new session.\n`,
  }
}
