import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { AppError } from '../../server/errors.ts'
import { requireAuth, requireMember, userActor } from '../../server/http/guards.ts'
import { cents, idParams, nullableText } from './json-schema.ts'
import { listMembers } from './members.ts'
import { type CompanyInput, type CompanyPatch, createCompany, getCompany, listCompanies, updateCompany } from './service.ts'

const name = { type: 'string', minLength: 1, maxLength: 120 } as const
const taskPrefix = { type: 'string', minLength: 1, maxLength: 8, pattern: '^[A-Z][A-Z0-9]*$' } as const

const createBody = {
  type: 'object',
  required: ['name'],
  properties: { name, mission: nullableText, monthly_budget_cents: cents, task_prefix: taskPrefix },
} as const

const patchBody = {
  type: 'object',
  properties: { name, mission: nullableText, monthly_budget_cents: cents, task_prefix: taskPrefix },
} as const

// /api/companies (create, list) and the company itself (get, patch), members.
// This module is mounted outside the company scope, so it installs its own guards.
export async function companyRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  await app.register(async (scope) => {
    scope.addHook('onRequest', requireAuth(ctx))

    scope.post('/api/companies', { schema: { tags: ['companies'], body: createBody } }, async (request, reply) => {
      const company = await write(ctx, (tx) =>
        createCompany(tx, request.principal.user.id, userActor(request), request.body as CompanyInput),
      )
      return reply.status(201).send(company)
    })

    scope.get('/api/companies', { schema: { tags: ['companies'] } }, async (request) =>
      listCompanies(ctx.db, request.principal.user.id),
    )
  })

  await app.register(async (member) => {
    member.addHook('onRequest', requireMember(ctx))
    const params = idParams()

    member.get('/api/companies/:company_id', { schema: { tags: ['companies'], params } }, async (request) =>
      getCompany(ctx.db, request.membership.companyId, request.principal.user.id),
    )

    member.patch('/api/companies/:company_id', { schema: { tags: ['companies'], params, body: patchBody } }, async (request) => {
      if (request.membership.role === 'member') {
        throw new AppError('FORBIDDEN', 'Only an owner or admin can change the company')
      }
      return write(ctx, (tx) =>
        updateCompany(tx, request.membership.companyId, request.principal.user.id, userActor(request), request.body as CompanyPatch),
      )
    })

    member.get('/api/companies/:company_id/members', { schema: { tags: ['companies'], params } }, async (request) =>
      listMembers(ctx.db, request.membership.companyId),
    )
  })
}
