// Which CLI sessions a kept agent home (--agent-homes) holds. The next run of an agent on the
// same task resumes the session of its last run there, and its transcript says so. A session made
// on another runner's machine is not in this home, and a CLI asked to resume it fails the run:
// such a run starts a new session instead, saying so. The home keeps the ids of the sessions
// made in it, one a line, in .shopfloor/sessions.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const FILE = join('.shopfloor', 'sessions')
/** Ids kept at most: the file is read at every run's start. */
const KEEP = 1000

function known(home: string): string[] {
  const file = join(home, FILE)
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []
}

/** Notes a session the CLI made in this home. */
export function keepSession(home: string, sessionId: string): void {
  const ids = known(home)
  if (ids.includes(sessionId)) return
  mkdirSync(join(home, '.shopfloor'), { recursive: true, mode: 0o700 })
  // Appended; rewritten to the newest KEEP once it holds twice as many.
  if (ids.length >= KEEP * 2) writeFileSync(join(home, FILE), `${[...ids, sessionId].slice(-KEEP).join('\n')}\n`)
  else appendFileSync(join(home, FILE), `${sessionId}\n`)
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
