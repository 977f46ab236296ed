import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { CompanyParams, companyErrors, errors } from '../../contract/common.ts'
import { Company } from '../../contract/companies.ts'
import { CompanyExport, CompanyImport, IMPORT_BODY_LIMIT, Template } from '../../contract/company-export.ts'
import { repositoryProblem } from '../../contract/repository.ts'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { AppError, invalidField } from '../../server/errors.ts'
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

/** Imports a process reads and writes at once, whoever sent them (each may take half a GB). */
export const IMPORTS_AT_ONCE = 3

/**
 * One import at a time per person, and IMPORTS_AT_ONCE in a process: a document of 100,000 tasks
 * (36 MB) took the server from 0.1-0.2 GB to 0.55-0.7 GB while it was read and written. Another
 * import meanwhile is refused before its body is read (429, with Retry-After; the client library
 * tries again by itself). The turn is freed once the answer is sent or the caller has gone, and a
 * body sent slower than the server's body timeout is cut (server/http/timeouts), so one person
 * sending at a byte a second holds their own turn only, and not for long. (A single turn for
 * everybody let one slow body stop every other tenant's imports.)
 */
function oneImportPerPerson() {
  const importing = new Set<string>()
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const person = request.principal.user.id
    if (importing.has(person) || importing.size >= IMPORTS_AT_ONCE) {
      reply.header('retry-after', '5')
      const whose = importing.has(person) ? 'Another company import of yours is under way' : `${IMPORTS_AT_ONCE} company imports are under way on this server`
      throw new AppError('RATE_LIMITED', `${whose}; try again once it is done`, {}, 429)
    }
    importing.add(person)
    const free = () => importing.delete(person)
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
      onRequest: oneImportPerPerson(),
      preValidation: requireUnlimited,
      schema: {
        tags, operationId: 'importCompany', summary: 'Create a company from an exported document', description: 'The caller becomes its owner. Up to 128 MiB and 200,000 tasks; one import at a time per person and three per server process (429 with Retry-After meanwhile).',
        body: CompanyImport, response: { 201: Company, ...errors(401, 403, 422, 429) },
      },
    },
    async (request, reply) => {
      // Repositories reach runners' `git clone`: the same forms as a project made through the API.
      for (const [i, { repository }] of (request.body.projects ?? []).entries()) {
        const problem = repository == null ? null : repositoryProblem(repository, ctx.config.allowLocalRepositories)
        if (problem) throw invalidField('body', `projects.${i}.repository`, `repository ${problem}`, repository)
      }
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
