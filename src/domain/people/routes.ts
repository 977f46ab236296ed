import type { FastifyInstance, FastifyRequest } from 'fastify'
import { InvitationAccept, InvitationCreate, MemberPatch } from '../../contract/people.ts'
import { createMailer } from '../../server/auth/mailer.ts'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { requireAuth, requireSession, userActor } from '../../server/http/guards.ts'
import { idParams } from '../companies/json-schema.ts'
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
export async function peopleRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const mailer = createMailer(ctx.config.smtp, ctx.config.production, ctx.log)

  app.post('/invitations', { schema: { tags, params: idParams(), body: InvitationCreate } }, async (request, reply) => {
    const invitation = await invite(ctx, mailer, request.membership.companyId, caller(request), request.body as InvitationCreate)
    return reply.status(201).send(invitation)
  })

  app.get('/invitations', { schema: { tags, params: idParams() } }, async (request) =>
    listInvitations(ctx.db, request.membership.companyId),
  )

  app.delete('/invitations/:invitation_id', { schema: { tags, params: idParams('invitation_id') } }, async (request, reply) => {
    const { invitation_id } = request.params as { invitation_id: string }
    await revokeInvitation(ctx, request.membership.companyId, caller(request), invitation_id)
    return reply.status(204).send()
  })

  app.patch('/members/:user_id', { schema: { tags, params: idParams('user_id'), body: MemberPatch } }, async (request) => {
    const { user_id } = request.params as { user_id: string }
    const { role } = request.body as MemberPatch
    const member = await write(ctx, (tx) => changeMemberRole(tx, request.membership.companyId, caller(request), user_id, role))
    ctx.credentials.clear()
    return member
  })

  app.delete('/members/:user_id', { schema: { tags, params: idParams('user_id') } }, async (request, reply) => {
    const { user_id } = request.params as { user_id: string }
    await write(ctx, (tx) => removeMemberById(tx, request.membership.companyId, caller(request), user_id))
    ctx.credentials.clear()
    return reply.status(204).send()
  })
}

// POST /api/invitations/accept: outside any company, with a password session.
export async function invitationAcceptRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.post('/api/invitations/accept', {
    schema: { tags, body: InvitationAccept },
    onRequest: [requireAuth(ctx), requireSession],
    config: { rateLimit: { max: 10, timeWindow: '1 minute' } },
  }, async (request) => {
    const { token } = request.body as { token: string }
    const { user } = request.principal
    const { companyId } = await acceptInvitation(ctx, user, token)
    ctx.credentials.clear()
    return getCompany(ctx.db, companyId, user.id)
  })
}
