import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { SERVICE_VERSION } from '../../contract/version.ts'
import { finishDocument } from './openapi-document.ts'

const TAGS = [
  ['accounts', 'Registration, sign-in, sessions, the caller and their preferences, password reset'],
  ['api-keys', 'Personal API keys for scripts and runners'],
  ['companies', 'Companies and their members'],
  ['agents', 'Hiring, changing, pausing and waking agents; the org chart'],
  ['tasks', 'The work: tasks named by id or key'],
  ['comments', 'Comments on tasks'],
  ['goals', 'Goals that tasks serve'],
  ['projects', 'Projects that group tasks and budgets'],
  ['routines', 'Scheduled tasks for agents'],
  ['runs', 'Agent runs and the runner protocol'],
  ['approvals', 'Hires, budget overrides and actions waiting for a person'],
  ['activity', 'The audit trail'],
  ['insights', 'Dashboard, costs and inbox'],
  ['events', 'The live event stream'],
  ['service', 'Health of the service'],
] as const

/** `/openapi.json` and interactive docs at `/docs`, generated from the route schemas (DEBUG=true only). */
export async function installDocs(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Shopfloor API',
        version: SERVICE_VERSION,
        description: 'Control plane for companies staffed by AI agents. Errors answer `{error: {code, message, details}}`.',
        license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
      },
      servers: [{ url: '/', description: 'This server' }],
      tags: TAGS.map(([name, description]) => ({ name, description })),
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An access token or a personal API key' } } },
      // Every route needs a credential unless its schema says `security: []`.
      security: [{ bearer: [] }],
    },
    // Shared schemas keep their own names as components (ErrorEnvelope), not def-0.
    // Named records, every status an operation can answer, closed bodies (openapi-document.ts).
    transformObject: (documentObject: any) => finishDocument(documentObject.openapiObject),
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
