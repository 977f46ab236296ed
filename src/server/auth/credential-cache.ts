import type { Db, Listener } from '../db/db.ts'

/** Notified by the triggers that call notify_channel('credentials_changed') (migration 134) when a key, a user or a membership changes. */
export const CREDENTIALS_CHANNEL = 'credentials_changed'

/** How long an answer is kept at most, whatever happens. */
const TTL_MS = 30_000
/** Past this many answers the cache starts over, which bounds its memory. */
const MAX_ENTRIES = 10_000

/**
 * Resolved credentials (the person and their role in one company), so that a busy API key or
 * session does not cost a database round trip on every request: the lookup was a third of the
 * database statements of a runner's run and half of those of a task read.
 *
 * Every change to api_keys, users (name, email, active, password change) and memberships
 * notifies CREDENTIALS_CHANNEL from a trigger, whichever process or instance made it, and each
 * process LISTENs and forgets everything as the notification arrives, moments after the
 * change commits (this process's own revoke, profile and reset endpoints clear it at once).
 * While the listening connection is down nothing is kept or served. A lookup that began
 * before a change is not kept (the generation moved), so an older answer cannot outlive it.
 */
export class CredentialCache<T> {
  private entries = new Map<string, { value: T; until: number }>()
  private generation = 0
  private listener: Listener | null = null
  private readonly watchers = new Set<() => void>()

  constructor(private readonly db: Db) {}

  /**
   * Calls `onChange` whenever a credential may have changed (what forgets the cache), so that
   * what was granted at connect (an open event stream) can be checked again. Returns the way to stop.
   */
  watch(onChange: () => void): () => void {
    this.listener ??= this.db.listen(CREDENTIALS_CHANNEL, () => this.clear())
    this.watchers.add(onChange)
    return () => this.watchers.delete(onChange)
  }

  /** The answer kept for key, if it is still good. Starts listening on first use. */
  get(key: string): T | undefined {
    this.listener ??= this.db.listen(CREDENTIALS_CHANNEL, () => this.clear())
    const entry = this.entries.get(key)
    if (!entry) return undefined
    if (this.listener.live && entry.until > Date.now()) return entry.value
    this.entries.delete(key)
    return undefined
  }

  /** Taken before a lookup and handed to remember(). */
  get version(): number {
    return this.generation
  }

  /** Keeps a lookup's answer, unless anything changed since it began; at most until `until` (ms). */
  remember(key: string, version: number, value: T, until = Infinity): void {
    if (version !== this.generation || !this.listener?.live) return
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear()
    this.entries.set(key, { value, until: Math.min(until, Date.now() + TTL_MS) })
  }

  /** Forgets everything: a credential changed, or notifications may have been missed. */
  clear(): void {
    this.generation++
    this.entries.clear()
    for (const onChange of this.watchers) onChange()
  }
}
