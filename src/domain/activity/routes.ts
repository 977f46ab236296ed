import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { ActivityQuery, AuditEvent } from '../../contract/activity.ts'
import { CompanyParams, companyErrors } from '../../contract/common.ts'
import type { AppContext } from '../../server/context.ts'
import { listActivity } from './service.ts'

// GET /activity: the audit trail, newest first, paged by `before` (a row's created_at).
export async function activityRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    '/activity',
    {
      schema: {
        tags: ['activity'], operationId: 'listActivity', summary: 'The audit trail, newest first',
        description: 'Page with `before` = the created_at of the last row held.',
        params: CompanyParams, querystring: ActivityQuery, response: { 200: Type.Array(AuditEvent), ...companyErrors() },
      },
    },
    async (request) => listActivity(ctx.db, request.membership.companyId, request.query.limit ?? 50, request.query.before ?? null),
  )
}
