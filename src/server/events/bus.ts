// Live events are invalidation signals: {type, id, ...extra}, all values strings or null.
// Producers publish through a transaction (db/write.ts) so that nothing leaves before commit.

export interface CompanyEvent {
  type: string
  id: string | null
  [extra: string]: string | null
}

export type EventListener = (event: CompanyEvent) => void

export interface EventBus {
  /** Delivers to every subscriber of the company (in this process or, with Redis, any process). */
  publish(companyId: string, event: CompanyEvent): void
  /** Returns the function that unsubscribes. */
  subscribe(companyId: string, listener: EventListener): () => void
  close(): Promise<void>
}

/** The in-process backend: one API instance only. */
export function memoryBus(): EventBus {
  const listeners = new Map<string, Set<EventListener>>()
  return {
    publish(companyId, event) {
      for (const listener of listeners.get(companyId) ?? []) listener(event)
    },
    subscribe(companyId, listener) {
      let set = listeners.get(companyId)
      if (!set) listeners.set(companyId, (set = new Set()))
      set.add(listener)
      return () => {
        set.delete(listener)
        if (set.size === 0) listeners.delete(companyId)
      }
    },
    async close() {
      listeners.clear()
    },
  }
}
