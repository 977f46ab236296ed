import type { Db, Listener } from '../../server/db/db.ts'

/** Notified by the trigger of migration 085 whenever a subscription is added, changed or removed. */
export const WEBHOOKS_CHANNEL = 'webhooks_changed'

/** How long "no subscription" is believed at most, whatever happens. */
const TTL_MS = 60_000
const MAX_ENTRIES = 100_000

/**
 * Which companies are known to have no enabled webhook subscription, so that their writes skip
 * the outbox entirely (no statement, no transaction around the one-statement hot paths).
 *
 * Every change to `webhooks` notifies WEBHOOKS_CHANNEL from a trigger, whichever process made
 * it; each process listens and forgets everything moments after the change commits. While the
 * listening connection is down nothing is believed. A lookup that began before a change is not
 * kept (the generation moved), so an older answer cannot outlive it. A subscription therefore
 * receives the events of every write that begins after its creation has been heard of.
 */
export class WebhookPresence {
  private absent = new Map<string, number>()
  private generation = 0
  private listener: Listener | null = null

  constructor(private readonly db: Db) {}

  /** True only when the company is known to have no enabled subscription. */
  knownAbsent(companyId: string): boolean {
    this.listener ??= this.db.listen(WEBHOOKS_CHANNEL, () => this.clear())
    const until = this.absent.get(companyId)
    if (until === undefined) return false
    if (this.listener.live && until > Date.now()) return true
    this.absent.delete(companyId)
    return false
  }

  /** Taken before a lookup and handed to rememberAbsent(). */
  get version(): number {
    return this.generation
  }

  rememberAbsent(companyId: string, version: number): void {
    if (version !== this.generation || !this.listener?.live) return
    if (this.absent.size >= MAX_ENTRIES) this.absent.clear()
    this.absent.set(companyId, Date.now() + TTL_MS)
  }

  clear(): void {
    this.generation++
    this.absent.clear()
  }
}

const byDb = new WeakMap<Db, WebhookPresence>()

/** The one cache of a database handle (an API process has one; tests build several). */
export function webhookPresence(db: Db): WebhookPresence {
  let presence = byDb.get(db)
  if (!presence) byDb.set(db, (presence = new WebhookPresence(db)))
  return presence
}
