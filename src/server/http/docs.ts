import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { SERVICE_VERSION } from './health.ts'

/** `/openapi.json` and interactive docs at `/docs`, generated from the route schemas (DEBUG=true only). */
export async function installDocs(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      info: { title: 'Shopfloor API', version: SERVICE_VERSION, description: 'Control plane for companies staffed by AI agents' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })
  app.get('/openapi.json', { schema: { hide: true } as any }, async () => app.swagger())
}
