// Follows a file a CLI appends JSON lines to while it runs (Codex's rollout, Gemini CLI's chat
// record): the usage of each model response is there as soon as the response ends, where the
// CLI's output gives it only at the end of the run. Polled, since the file may not exist yet
// and is found by a name the CLI chooses.
import fs from 'node:fs'

const POLL_MS = 200
/** More than a line of these files ever holds; a longer line is skipped. */
const MAX_PENDING_CHARS = 8 * 1024 * 1024

export class FileFollower {
  private path: string | null = null
  private offset = 0
  private pending = ''
  private readonly timer: NodeJS.Timeout

  /**
   * `find` answers the file's path once it exists (null before); `skipExisting` starts at its
   * end as found first (a resumed session's file holds the earlier runs).
   */
  constructor(
    private readonly find: () => string | null,
    private readonly onLine: (line: string) => void,
    private readonly skipExisting = false,
  ) {
    this.timer = setInterval(() => this.poll(), POLL_MS)
    this.timer.unref()
  }

  /** Reads what was appended since the last poll. */
  poll(): void {
    try {
      if (!this.path) {
        this.path = this.find()
        if (!this.path) return
        if (this.skipExisting) this.offset = fs.statSync(this.path).size
      }
      const size = fs.statSync(this.path).size
      if (size <= this.offset) return
      const fd = fs.openSync(this.path, 'r')
      try {
        const buffer = Buffer.alloc(size - this.offset)
        fs.readSync(fd, buffer, 0, buffer.length, this.offset)
        this.offset = size
        this.pending += buffer.toString('utf8')
      } finally {
        fs.closeSync(fd)
      }
      let newline: number
      while ((newline = this.pending.indexOf('\n')) >= 0) {
        const line = this.pending.slice(0, newline)
        this.pending = this.pending.slice(newline + 1)
        if (line.trim()) this.onLine(line)
      }
      if (this.pending.length > MAX_PENDING_CHARS) this.pending = ''
    } catch {
      // not there (yet), or gone with the run's home: the CLI's output still has the totals
    }
  }

  /** A last read, then no more. */
  close(): void {
    clearInterval(this.timer)
    this.poll()
  }
}

/** The first file under `dir` (searched recursively) whose name `matches`, or null. */
export function findFile(dir: string, matches: (name: string) => boolean): string | null {
  try {
    const file = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).find((f) => matches(f.split('/').pop()!))
    return file ? `${dir}/${file}` : null
  } catch {
    return null
  }
}
