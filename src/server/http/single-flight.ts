import type { FastifyRequest } from 'fastify'
import { Counter } from 'prom-client'
import { registry } from '../metrics.ts'

/**
 * Identical reads that arrive at the same moment are computed once and answered alike: under
 * load, a board or a dashboard open in many tabs (or many readers of one company) asks the
 * same question many times a second, and each answer cost the server and the database the
 * same work.
 *
 * "The same moment" is strict: a request joins a computation only while that computation has
 * not started yet, i.e. in the same turn of the event loop (requests read from the sockets in
 * one poll phase; the computation starts in the check phase right after, setImmediate). Every
 * request sharing an answer therefore arrived before its statements' snapshot was taken, so a
 * write answered before any of them was sent is in the answer, whichever instance made it.
 * Nothing is kept once the computation has started: this is no cache, no answer is ever older
 * than the request.
 *
 * The key must hold everything the answer depends on: the route, the company, the query, and
 * the rights of the credential asking (readKey), so that two callers who may see different
 * things never share an answer.
 */
export class SingleFlight<T> {
  private readonly waiting = new Map<string, Promise<T>>()

  constructor(private readonly route: string) {}

  run(key: string, compute: () => Promise<T>): Promise<T> {
    const joined = this.waiting.get(key)
    if (joined) {
      readsShared.inc({ route: this.route })
      return joined
    }
    const flight = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      // Closed to newcomers before the first statement is sent.
      this.waiting.delete(key)
      readsComputed.inc({ route: this.route })
      return compute()
    })
    this.waiting.set(key, flight)
    return flight
  }
}

/**
 * The part of a read's key that names who asks and with which rights: the person, their role
 * in the company, and for a run credential the run (which acts with its agent's rights). An
 * API key limited to a company has its person's rights there, as an access token has.
 */
export function rightsKey(request: FastifyRequest): string {
  const { principal, membership } = request
  return `${principal.user.id}/${membership.role}/${principal.run?.runId ?? '-'}`
}

/** A query object as a key: its fields in a fixed order, whatever order the URL gave them in. */
export function queryKey(query: unknown): string {
  if (!query || typeof query !== 'object') return ''
  return JSON.stringify(Object.entries(query as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

export const readsComputed = new Counter({
  name: 'shopfloor_reads_computed_total',
  help: 'Reads served once for identical requests arriving together: answers computed, by route',
  labelNames: ['route'] as const,
  registers: [registry],
})

export const readsShared = new Counter({
  name: 'shopfloor_reads_shared_total',
  help: 'Reads answered with the answer of an identical request that arrived at the same moment, by route',
  labelNames: ['route'] as const,
  registers: [registry],
})
