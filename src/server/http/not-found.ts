import FindMyWay from 'find-my-way'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { envelope } from './error-handler.ts'

/**
 * Unknown paths answer 404 `Not Found`; a known path with a method it does not have answers
 * 405. Fastify only knows "no route", so every registered path is mirrored into a router
 * that answers "does this path exist under any method?".
 */
export type PageFallback = (request: FastifyRequest, reply: FastifyReply) => boolean

/** `fallback` may answer a GET that matched no route (the web app's pages); true = answered. */
export function installNotFound(app: FastifyInstance, fallback?: PageFallback): void {
  // As the app's own router (app.ts): /health/ is /health.
  const paths = FindMyWay({ ignoreTrailingSlash: true })
  const seen = new Set<string>()
  app.addHook('onRoute', (route) => {
    // CORS answers OPTIONS on every path through a catch-all; it says nothing about which exist.
    const methods = ([] as string[]).concat(route.method)
    if (route.url === '*' || route.url === '/*' || methods.every((m) => m === 'OPTIONS')) return
    if (seen.has(route.url)) return
    seen.add(route.url)
    paths.on('GET', route.url, () => {})
  })

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]
    if (request.method === 'GET' && fallback?.(request, reply)) return reply
    if (paths.find('GET', path)) {
      return reply.status(405).send(envelope('METHOD_NOT_ALLOWED', 'Method Not Allowed'))
    }
    return reply.status(404).send(envelope('NOT_FOUND', 'Not Found'))
  })
}
