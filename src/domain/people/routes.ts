import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { CompanyParams, companyErrors, errors, IdParams, NoContent } from '../../contract/common.ts'
import { Company, Member } from '../../contract/companies.ts'
import { Invitation, InvitationAccept, InvitationCreate, MemberPatch } from '../../contract/people.ts'
import { createMailer } from '../../server/auth/mailer.ts'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { requireAuth, requireSession, userActor } from '../../server/http/guards.ts'
import { type Caller, changeMemberRole, removeMemberById } from '../companies/members.ts'
import { getCompany } from '../companies/service.ts'
import { acceptInvitation, invite, listInvitations, revokeInvitation } from './invitations.ts'

const tags = ['members']

function caller(request: FastifyRequest): Caller {
  return { userId: request.principal.user.id, role: request.membership.role, actor: userActor(request) }
}

// People of a company (API-DECISIONS.md, "People"): invitations, role changes and removals,
// mounted under /api/companies/{company_id}. A change to memberships clears this process's
// credential cache at once (other processes forget on the database's notification), so a
// removed member's next request is refused.
export async function peopleRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  const mailer = createMailer(ctx.config.smtp, ctx.config.production, ctx.log)
  const failures = { ...companyErrors(), ...errors(400, 403) }

  app.post(
    '/invitations',
    {
      schema: {
        tags, operationId: 'createInvitation', summary: 'Invite someone by email', description: 'Owner or admin.',
        params: CompanyParams, body: InvitationCreate, response: { 201: Invitation, ...failures },
      },
    },
    async (request, reply) => {
      const invitation = await invite(ctx, mailer, request.membership.companyId, caller(request), request.body)
      return reply.status(201).send(invitation)
    },
  )

  app.get(
    '/invitations',
    {
      schema: {
        tags, operationId: 'listInvitations', summary: 'List pending invitations',
        params: CompanyParams, response: { 200: Type.Array(Invitation), ...companyErrors() },
      },
    },
    async (request) => listInvitations(ctx.db, request.membership.companyId),
  )

  app.delete(
    '/invitations/:invitation_id',
    {
      schema: {
        tags, operationId: 'revokeInvitation', summary: 'Revoke an invitation',
        params: IdParams('invitation_id'), response: { 204: NoContent, ...failures },
      },
    },
    async (request, reply) => {
      await revokeInvitation(ctx, request.membership.companyId, caller(request), request.params.invitation_id)
      return reply.status(204).send()
    },
  )

  app.patch(
    '/members/:user_id',
    {
      schema: {
        tags, operationId: 'updateMember', summary: "Change a member's role",
        params: IdParams('user_id'), body: MemberPatch, response: { 200: Member, ...failures },
      },
    },
    async (request) => {
      const member = await write(ctx, (tx) => changeMemberRole(tx, request.membership.companyId, caller(request), request.params.user_id, request.body.role))
      ctx.credentials.clear()
      return member
    },
  )

  app.delete(
    '/members/:user_id',
    {
      schema: {
        tags, operationId: 'removeMember', summary: 'Remove a member',
        params: IdParams('user_id'), response: { 204: NoContent, ...failures },
      },
    },
    async (request, reply) => {
      await write(ctx, (tx) => removeMemberById(tx, request.membership.companyId, caller(request), request.params.user_id))
      ctx.credentials.clear()
      return reply.status(204).send()
    },
  )
}

// POST /api/invitations/accept: outside any company, with a password session.
export async function invitationAcceptRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  app.post(
    '/api/invitations/accept',
    {
      schema: {
        tags, operationId: 'acceptInvitation', summary: 'Accept an invitation: join its company',
        body: InvitationAccept, response: { 200: Company, ...errors(400, 401, 403, 422, 429) },
      },
      onRequest: [requireAuth(ctx), requireSession],
      config: { rateLimit: { max: 10, timeWindow: '1 minute' } },
    },
    async (request) => {
      const { user } = request.principal
      const { companyId } = await acceptInvitation(ctx, user, request.body.token)
      ctx.credentials.clear()
      return getCompany(ctx.db, companyId, user.id)
    },
  )
}
