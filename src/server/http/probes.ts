import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { errors } from '../../contract/common.ts'
import { Status } from '../../contract/service.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../errors.ts'
import { initialisationFailed, starting } from './availability.ts'

/**
 * `GET /livez` and `GET /readyz`: the probes of load balancers, Kubernetes and container engines.
 * Not rate-limited, unlike `/health` (SPEC.md: 100 a minute per address), which a proxy checking
 * several instances every second from one address would exhaust and take every instance out.
 *  - livez: the process answers (it does not touch the database, so a database outage does not
 *    get every instance restarted);
 *  - readyz: the database answers and the start-up migrations have been applied; 503 otherwise.
 */
export async function probeRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  app.get('/livez', {
    schema: {
      tags: ['service'], security: [], operationId: 'getLive', summary: 'The process is up (no database check; not rate-limited)',
      response: { 200: Status, ...errors(400, 503) }, // 400: a Host outside ALLOWED_HOSTS
    },
  }, async () => ({ status: 'ok' }))

  app.get('/readyz', {
    schema: {
      tags: ['service'], security: [], operationId: 'getReady',
      summary: 'Ready to serve: the database answers and the migrations are applied (not rate-limited)',
      response: { 200: Status, ...errors(400, 503) }, // 400: a Host outside ALLOWED_HOSTS
    },
  }, async () => {
    if (ctx.dbState === 'failed') throw initialisationFailed()
    if (ctx.dbState !== 'ready') throw starting()
    try {
      await ctx.db.query('SELECT 1')
    } catch {
      throw new AppError('SERVICE_UNAVAILABLE', 'The database does not answer')
    }
    return { status: 'ok' }
  })
}
