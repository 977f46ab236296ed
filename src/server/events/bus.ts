// Live events are invalidation signals: {type, id, ...extra}, all values strings or null.
// Producers publish through a transaction (db/write.ts) so that nothing leaves before commit.

export interface CompanyEvent {
  type: string
  id: string | null
  [extra: string]: string | null
}

export type EventListener = (event: CompanyEvent) => void
/** A listener to every company's events (the scheduler). */
export type AnyCompanyListener = (companyId: string, event: CompanyEvent) => void

/**
 * What subscribe returns: call it to unsubscribe. `ready` resolves once events published from
 * anywhere reach the listener (with Redis: once the company's channel is subscribed), so a
 * stream can tell its client it is live only when it really is.
 */
export interface Unsubscribe {
  (): void
  ready: Promise<void>
}

/** Counters for logs, tests and the benchmark. */
export interface BusStats {
  backend: 'memory' | 'redis'
  /** The shared backend is reachable (always true in process). */
  connected: boolean
  /** Companies with at least one listener in this process. */
  companies: number
  /** Listeners in this process. */
  listeners: number
  /** Publishes that could not be handed to the backend (Redis down); the write still succeeded. */
  publishFailures: number
}

export interface EventBus {
  /**
   * Delivers to every subscriber of the company (in this process or, with Redis, any process).
   * Never throws: it runs after the write committed, so a failure here must not turn a
   * successful write into an error. Failures are logged and counted instead.
   */
  publish(companyId: string, event: CompanyEvent): void
  subscribe(companyId: string, listener: EventListener): Unsubscribe
  /**
   * Every company's events, those of companies created later included (with Redis: one
   * pattern subscription to `sat:company:*:events`, from any process).
   */
  subscribeAll(listener: AnyCompanyListener): Unsubscribe
  stats(): BusStats
  close(): Promise<void>
}

/**
 * The listeners of this process, by company. Both backends keep one: the memory bus publishes
 * straight into it, the Redis bus feeds it from its one subscriber connection.
 */
export class ListenerRegistry {
  private readonly byCompany = new Map<string, Set<EventListener>>()
  private count = 0

  /** Adds a listener; true when it is the company's first (the backend should start listening). */
  add(companyId: string, listener: EventListener): boolean {
    let set = this.byCompany.get(companyId)
    const first = !set
    if (!set) this.byCompany.set(companyId, (set = new Set()))
    if (!set.has(listener)) this.count++
    set.add(listener)
    return first
  }

  /** Removes a listener; true when it was the company's last (the backend may stop listening). */
  remove(companyId: string, listener: EventListener): boolean {
    const set = this.byCompany.get(companyId)
    if (!set?.delete(listener)) return false
    this.count--
    if (set.size > 0) return false
    this.byCompany.delete(companyId)
    return true
  }

  has(companyId: string): boolean {
    return this.byCompany.has(companyId)
  }

  companies(): string[] {
    return [...this.byCompany.keys()]
  }

  /** Calls every listener of the company; one failing listener does not stop the others. */
  deliver(companyId: string, event: CompanyEvent, onError: (err: unknown) => void): void {
    const set = this.byCompany.get(companyId)
    if (!set) return
    // A Set tolerates listeners leaving while it is iterated; no copy per event.
    for (const listener of set) {
      try {
        listener(event)
      } catch (err) {
        onError(err)
      }
    }
  }

  sizes(): { companies: number; listeners: number } {
    return { companies: this.byCompany.size, listeners: this.count }
  }

  clear(): void {
    this.byCompany.clear()
    this.count = 0
  }
}

/** Builds the function subscribe returns. */
export function unsubscriber(unsubscribe: () => void, ready: Promise<void>): Unsubscribe {
  let done = false
  const fn = (() => {
    if (done) return
    done = true
    unsubscribe()
  }) as Unsubscribe
  fn.ready = ready
  return fn
}

/** Calls every listener to all companies; one failing listener does not stop the others. */
export function deliverToAll(listeners: Set<AnyCompanyListener>, companyId: string, event: CompanyEvent, onError: (err: unknown) => void): void {
  for (const listener of listeners) {
    try {
      listener(companyId, event)
    } catch (err) {
      onError(err)
    }
  }
}

/** The in-process backend: one API instance only. */
export function memoryBus(onListenerError: (err: unknown) => void = () => {}): EventBus {
  const registry = new ListenerRegistry()
  const everyCompany = new Set<AnyCompanyListener>()
  return {
    publish(companyId, event) {
      registry.deliver(companyId, event, onListenerError)
      deliverToAll(everyCompany, companyId, event, onListenerError)
    },
    subscribe(companyId, listener) {
      registry.add(companyId, listener)
      return unsubscriber(() => registry.remove(companyId, listener), Promise.resolve())
    },
    subscribeAll(listener) {
      everyCompany.add(listener)
      return unsubscriber(() => everyCompany.delete(listener), Promise.resolve())
    },
    stats() {
      return { backend: 'memory', connected: true, publishFailures: 0, ...registry.sizes() }
    },
    async close() {
      registry.clear()
      everyCompany.clear()
    },
  }
}
