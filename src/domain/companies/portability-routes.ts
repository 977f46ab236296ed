import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { CompanyParams, companyErrors, errors } from '../../contract/common.ts'
import { Company } from '../../contract/companies.ts'
import { CompanyExport, CompanyImport, IMPORT_BODY_LIMIT, Template } from '../../contract/company-export.ts'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { AppError } from '../../server/errors.ts'
import { requireAuth, requireUnlimited, userActor } from '../../server/http/guards.ts'
import { exportCompanyJson } from './export.ts'
import { importCompany } from './import.ts'
import { listTemplates } from './templates.ts'

const tags = ['companies']

/** GET /api/companies/{company_id}/export, inside the company scope (any member). */
export async function exportRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    '/export',
    {
      schema: {
        tags, operationId: 'exportCompany', summary: 'The company as a portable document',
        params: CompanyParams, response: { 200: CompanyExport, ...companyErrors() },
      },
    },
    // Already JSON (export.ts): a string of that type is sent as it is, not serialised again
    // (hence the reply without the route's typed payload).
    async (request, reply) => (reply as FastifyReply).type('application/json').send(await exportCompanyJson(ctx.db, request.membership.companyId)),
  )
}

/**
 * One import at a time in a process: a document of 100,000 tasks (36 MB) took the server from
 * 0.1-0.2 GB to 0.55-0.7 GB while it was read and written, and several at once could take more than
 * the machine has. Another import meanwhile is refused before its body is read (429, with
 * Retry-After; the client library tries again by itself). The import under way frees the turn
 * once its answer is sent or its caller has gone. (Waiting in line instead held requests whose
 * callers had gone, unnoticed until their turn, and then stuck the line.)
 */
function oneImportAtATime() {
  let busy = false
  return async (_request: FastifyRequest, reply: FastifyReply) => {
    if (busy) {
      reply.header('retry-after', '5')
      throw new AppError('RATE_LIMITED', 'Another company import is under way on this server; try again once it is done', {}, 429)
    }
    busy = true
    const free = () => { busy = false }
    reply.raw.once('close', free)
    reply.raw.once('finish', free)
  }
}

/** POST /api/companies/import and GET /api/templates: any signed-in person. */
export async function importRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  app.addHook('onRequest', requireAuth(ctx))

  app.post(
    '/api/companies/import',
    {
      bodyLimit: IMPORT_BODY_LIMIT,
      onRequest: oneImportAtATime(),
      preValidation: requireUnlimited,
      schema: {
        tags, operationId: 'importCompany', summary: 'Create a company from an exported document', description: 'The caller becomes its owner. Up to 128 MiB and 200,000 tasks; one import at a time per server process (429 with Retry-After meanwhile).',
        body: CompanyImport, response: { 201: Company, ...errors(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      const company = await write(ctx, (tx) => importCompany(tx, request.principal.user.id, userActor(request), request.body))
      return reply.status(201).send(company)
    },
  )

  app.get(
    '/api/templates',
    { schema: { tags, operationId: 'listTemplates', summary: 'Ready companies to start from', response: { 200: Type.Array(Template), ...errors(401) } } },
    async () => listTemplates(),
  )
}
