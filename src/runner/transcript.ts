import { ApiError } from '../client/index.ts'
import type { TranscriptRole } from './adapters/adapter.ts'

/**
 * The longest text one add() keeps: the API takes 1 MiB of UTF-8 in one entry's text (413
 * beyond) and 8 MiB a request, and a character takes up to three bytes (control characters six,
 * escaped as JSON); an agent printing one 11 MB message had every later report refused.
 */
export const MAX_ADDED_CHARS = 340_000

export interface TranscriptChunk {
  role: TranscriptRole
  text: string
}

/**
 * Collects transcript text and sends it every `intervalMs`, or as soon as `maxChars` are
 * buffered. Consecutive text of one role becomes one entry, so a chatty agent does not make
 * thousands of entries; each tool call stays an entry of its own. Sends never overlap (the order
 * of entries is kept); a send that fails puts its entries back in front, to go with the next one,
 * unless the server refused them as they are (a 4xx other than 408 and 429: sending them again
 * would be refused again, and so would the run's final report carrying them): then they are
 * replaced by a system entry saying so.
 */
export class TranscriptBuffer {
  private entries: TranscriptChunk[] = []
  private size = 0
  private timer: NodeJS.Timeout | undefined
  private sending: Promise<void> = Promise.resolve()
  private closed = false

  constructor(
    private readonly send: (entries: TranscriptChunk[]) => Promise<void>,
    private readonly intervalMs: number,
    private readonly maxChars: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  add(role: TranscriptRole, text: string): void {
    if (this.closed || !text) return
    text = storable(text)
    if (text.length > MAX_ADDED_CHARS) text = `${text.slice(0, MAX_ADDED_CHARS)}\n[${(text.length - MAX_ADDED_CHARS).toLocaleString('en-US')} more characters left out]`
    const last = this.entries[this.entries.length - 1]
    // A tool entry is one call (web: one collapsed line each), never merged with the next.
    if (last && last.role === role && role !== 'tool') last.text += text
    else this.entries.push({ role, text })
    this.size += text.length
    if (this.size >= this.maxChars) void this.flush()
    else this.timer ??= setTimeout(() => void this.flush(), this.intervalMs)
  }

  /** Sends what is buffered; resolves once it (and every earlier send) is done. */
  flush(): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    this.sending = this.sending.then(async () => {
      if (!this.entries.length) return
      const batch = this.entries
      this.entries = []
      this.size = 0
      try {
        await this.send(batch)
      } catch (err) {
        if (refusedAsIs(err)) {
          this.entries = [{ role: 'system', text: `${batch.length} transcript entries were refused by the server and left out: ${(err as Error).message}` }, ...this.entries]
          this.size = this.entries.reduce((n, e) => n + e.text.length, 0)
          this.onError(err)
          return
        }
        this.entries = [...batch, ...this.entries]
        this.size = this.entries.reduce((n, e) => n + e.text.length, 0)
        if (!this.closed) this.timer ??= setTimeout(() => void this.flush(), this.intervalMs)
        this.onError(err)
      }
    })
    return this.sending
  }

  /** Stops timers; what is still buffered is dropped (the run is no longer ours). */
  close(): void {
    this.closed = true
    clearTimeout(this.timer)
    this.entries = []
  }

  /** Entries not sent yet, for the final report. */
  take(): TranscriptChunk[] {
    const rest = this.entries
    this.entries = []
    this.size = 0
    return rest
  }
}

/** A 4xx the same request would meet again (not a timeout or a rate limit). */
function refusedAsIs(err: unknown): boolean {
  return err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429
}

/** Text the API takes: PostgreSQL cannot hold U+0000, so one such character made it refuse the request. */
export function storable(text: string): string {
  return text.replaceAll('\u0000', '\uFFFD')
}
