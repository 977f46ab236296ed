import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'
import { userActor } from '../../server/http/guards.ts'
import { cents, idParams, nullable } from '../companies/json-schema.ts'
import { type Decision, decideApproval } from './decide.ts'
import { APPROVAL_STATUSES, type ApprovalStatus } from './model.ts'
import { getApproval, listApprovals } from './read.ts'

const tags = ['approvals']

const note = nullable({ type: 'string' })
const decisionBody = {
  approve: { type: ['object', 'null'], properties: { decision_note: note, new_budget_cents: nullable(cents) } },
  reject: { type: ['object', 'null'], properties: { decision_note: note } },
} as const

// Approvals: list, get, approve, reject. Any member may decide.
export async function approvalRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  app.get(
    '/approvals',
    { schema: { tags, params: idParams(), querystring: { type: 'object', properties: { status: { type: 'string', enum: APPROVAL_STATUSES } } } } },
    async (request) => listApprovals(ctx.db, request.membership.companyId, (request.query as { status?: ApprovalStatus }).status),
  )

  app.get('/approvals/:approval_id', { schema: { tags, params: idParams('approval_id') } }, async (request) => {
    return getApproval(ctx.db, request.membership.companyId, (request.params as { approval_id: string }).approval_id)
  })

  for (const decision of ['approve', 'reject'] as const) {
    app.post(`/approvals/:approval_id/${decision}`, { schema: { tags, params: idParams('approval_id'), body: decisionBody[decision] } }, async (request) => {
      const body = (request.body ?? {}) as Omit<Decision, 'decision'>
      const { approval_id } = request.params as { approval_id: string }
      const actor = userActor(request) as Parameters<typeof decideApproval>[4]
      return decideApproval(ctx, request.membership.companyId, approval_id, { ...body, decision }, actor)
    })
  }
}
