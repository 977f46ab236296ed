import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { ActivityQuery, AuditEvent } from '../../contract/activity.ts'
import { CompanyParams, companyErrors } from '../../contract/common.ts'
import type { AppContext } from '../../server/context.ts'
import { invalidField } from '../../server/errors.ts'
import { listActivity } from './service.ts'

// GET /activity: the audit trail, newest first, paged by `before` (a row's created_at); with
// `entity_type` and `entity_id`, the events of that one record.
export async function activityRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    '/activity',
    {
      schema: {
        tags: ['activity'], operationId: 'listActivity', summary: 'The audit trail, newest first',
        description: 'Page with `before` = the created_at of the last row held. `entity_type` and `entity_id` together '
          + 'narrow it to one record (for example a task\'s status and assignee changes); one without the other is 422.',
        params: CompanyParams, querystring: ActivityQuery, response: { 200: Type.Array(AuditEvent), ...companyErrors() },
      },
    },
    async (request) => {
      const { entity_type, entity_id } = request.query
      if ((entity_type === undefined) !== (entity_id === undefined)) {
        const missing = entity_type === undefined ? 'entity_type' : 'entity_id'
        throw invalidField('query', missing, 'entity_type and entity_id go together: give both or neither')
      }
      const entity = entity_type && entity_id ? { type: entity_type, id: entity_id } : null
      return listActivity(ctx.db, request.membership.companyId, request.query.limit ?? 50, request.query.before ?? null, entity)
    },
  )
}
