import type { FastifyInstance } from 'fastify'
import { CompanyImport } from '../../contract/company-export.ts'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { requireAuth, userActor } from '../../server/http/guards.ts'
import { idParams } from './json-schema.ts'
import { exportCompany } from './export.ts'
import { importCompany } from './import.ts'
import { listTemplates } from './templates.ts'

/** GET /api/companies/{company_id}/export, inside the company scope (any member). */
export async function exportRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.get('/export', { schema: { tags: ['companies'], params: idParams() } }, async (request) =>
    exportCompany(ctx.db, request.membership.companyId),
  )
}

/** POST /api/companies/import and GET /api/templates: any signed-in person. */
export async function importRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.addHook('onRequest', requireAuth(ctx))

  app.post('/api/companies/import', { schema: { tags: ['companies'], body: CompanyImport } }, async (request, reply) => {
    const company = await write(ctx, (tx) => importCompany(tx, request.principal.user.id, userActor(request), request.body as CompanyImport))
    return reply.status(201).send(company)
  })

  app.get('/api/templates', { schema: { tags: ['companies'] } }, async () => listTemplates())
}
