import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { type Static, Type } from 'typebox'
import { type ErrorEnvelope, ErrorRef, errors } from '../../contract/common.ts'
import { Health, ServiceInfo, Status } from '../../contract/service.ts'
import { SERVICE_VERSION } from '../../contract/version.ts'
import type { AppContext } from '../context.ts'
import type { PageFallback } from './not-found.ts'
import { prefersHtml } from './web-app.ts'

export const SERVICE_NAME = 'shopfloor'

/** `GET /` (service information) and `GET /health` (a trivial query on every call). */
export async function healthRoutes(instance: FastifyInstance, { ctx, pages }: { ctx: AppContext; pages?: PageFallback }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  // A browser asking for `/` gets the web app; everything else gets the service information.
  app.get('/', { schema: { hide: true, response: { 200: ServiceInfo } } }, async (request, reply) => {
    if (pages && prefersHtml(request) && pages(request, reply)) return reply
    return {
      service: SERVICE_NAME,
      version: SERVICE_VERSION,
      environment: ctx.config.environment,
      docs: ctx.config.debug ? '/docs' : null,
    }
  })

  app.get(
    '/health',
    {
      config: { rateLimit: { max: 100, timeWindow: '1 minute' } },
      schema: {
        tags: ['service'], security: [], operationId: 'getHealth', summary: 'Liveness and database reachability',
        response: { 200: Health, 503: Type.Unsafe<Static<typeof Health> | ErrorEnvelope>({
          anyOf: [Health, ErrorRef],
          description: 'Unhealthy (`database` says why), or the error envelope while the service shuts down',
        }), ...errors(429) },
      },
    },
    async (_request, reply) => {
      const base = {
        service: SERVICE_NAME,
        version: SERVICE_VERSION,
        environment: ctx.config.environment,
        timestamp: Date.now() / 1000,
      }
      // This is the one failure answered outside the error envelope.
      if (ctx.dbState === 'failed') {
        return reply.status(503).send({ ...base, status: 'unhealthy' as const, database: 'initialization failed' })
      }
      try {
        await ctx.db.query('SELECT 1')
      } catch {
        return reply.status(503).send({ ...base, status: 'unhealthy' as const, database: 'unreachable' })
      }
      if (ctx.dbState !== 'ready') {
        return reply.status(503).send({ ...base, status: 'unhealthy' as const, database: 'unreachable' })
      }
      return { ...base, status: 'healthy' as const }
    },
  )

  app.get(
    '/api/rate-limit-test',
    {
      config: { rateLimit: { max: 10, timeWindow: '1 minute' } },
      schema: {
        tags: ['service'], security: [], operationId: 'rateLimitTest', summary: 'A route limited to 10 calls a minute, for clients to test against',
        response: { 200: Status, ...errors(429) },
      },
    },
    async () => ({ status: 'ok' }),
  )
}
