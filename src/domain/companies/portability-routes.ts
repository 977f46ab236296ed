import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { CompanyParams, companyErrors, errors } from '../../contract/common.ts'
import { Company } from '../../contract/companies.ts'
import { CompanyExport, CompanyImport, Template } from '../../contract/company-export.ts'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { requireAuth, userActor } from '../../server/http/guards.ts'
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

/** POST /api/companies/import and GET /api/templates: any signed-in person. */
export async function importRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  app.addHook('onRequest', requireAuth(ctx))

  app.post(
    '/api/companies/import',
    {
      schema: {
        tags, operationId: 'importCompany', summary: 'Create a company from an exported document', description: 'The caller becomes its owner.',
        body: CompanyImport, response: { 201: Company, ...errors(401, 422) },
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
