import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { CompanyParams, errors } from '../../contract/common.ts'
import { Company, CompanyCreateBody, CompanyPatchBody, Member } from '../../contract/companies.ts'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { AppError } from '../../server/errors.ts'
import { requireAuth, requireMember, requireUnlimited, userActor } from '../../server/http/guards.ts'
import { listMembers } from './members.ts'
import { createCompany, getCompany, listCompanies, updateCompany } from './service.ts'

const tags = ['companies']

// /api/companies (create, list) and the company itself (get, patch), members.
// This module is mounted outside the company scope, so it installs its own guards.
export async function companyRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  await app.register(async (instance) => {
    const scope = instance.withTypeProvider<TypeBoxTypeProvider>()
    scope.addHook('onRequest', requireAuth(ctx))

    scope.post(
      '/api/companies',
      {
        preValidation: requireUnlimited,
        schema: {
          tags, operationId: 'createCompany', summary: 'Create a company', description: 'The caller becomes its owner.',
          body: CompanyCreateBody, response: { 201: Company, ...errors(401, 403, 422) },
        },
      },
      async (request, reply) => {
        const company = await write(ctx, (tx) => createCompany(tx, request.principal.user.id, userActor(request), request.body))
        return reply.status(201).send(company)
      },
    )

    scope.get(
      '/api/companies',
      {
        schema: {
          tags, operationId: 'listCompanies', summary: "List the caller's companies",
          response: { 200: Type.Array(Company), ...errors(401) },
        },
      },
      async (request) => listCompanies(ctx.db, request.principal.user.id, request.principal.keyCompanyId ?? null),
    )
  })

  await app.register(async (instance) => {
    const member = instance.withTypeProvider<TypeBoxTypeProvider>()
    member.addHook('onRequest', requireMember(ctx))

    member.get(
      '/api/companies/:company_id',
      {
        schema: {
          tags, operationId: 'getCompany', summary: 'Get a company, with the caller\'s role',
          params: CompanyParams, response: { 200: Company, ...errors(401, 404, 422) },
        },
      },
      async (request) => getCompany(ctx.db, request.membership.companyId, request.principal.user.id),
    )

    member.patch(
      '/api/companies/:company_id',
      {
        schema: {
          tags, operationId: 'updateCompany', summary: 'Update a company', description: 'Owner or admin.',
          params: CompanyParams, body: CompanyPatchBody, response: { 200: Company, ...errors(401, 403, 404, 422) },
        },
      },
      async (request) => {
        if (request.membership.role === 'member') {
          throw new AppError('FORBIDDEN', 'Only an owner or admin can change the company')
        }
        return write(ctx, (tx) =>
          updateCompany(tx, request.membership.companyId, request.principal.user.id, userActor(request), request.body),
        )
      },
    )

    member.get(
      '/api/companies/:company_id/members',
      {
        schema: {
          tags, operationId: 'listMembers', summary: 'List the members', description: 'In the order they joined.',
          params: CompanyParams, response: { 200: Type.Array(Member), ...errors(401, 404, 422) },
        },
      },
      async (request) => listMembers(ctx.db, request.membership.companyId),
    )
  })
}
