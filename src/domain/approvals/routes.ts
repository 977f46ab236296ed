import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { Approval, ApproveBody, ListApprovalsQuery, RejectBody } from '../../contract/approvals.ts'
import { CompanyParams, companyErrors, errors, IdParams } from '../../contract/common.ts'
import type { AppContext } from '../../server/context.ts'
import { userActor } from '../../server/http/guards.ts'
import { decideApproval } from './decide.ts'
import { getApproval, listApprovals } from './read.ts'

const tags = ['approvals']
const ApprovalParams = IdParams('approval_id')

// Approvals: list, get, approve, reject. Any member may decide.
export async function approvalRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()

  app.get(
    '/approvals',
    {
      schema: {
        tags, operationId: 'listApprovals', summary: 'List approvals', description: 'Newest first.',
        params: CompanyParams, querystring: ListApprovalsQuery, response: { 200: Type.Array(Approval), ...companyErrors() },
      },
    },
    async (request) => listApprovals(ctx.db, request.membership.companyId, request.query.status),
  )

  app.get(
    '/approvals/:approval_id',
    { schema: { tags, operationId: 'getApproval', summary: 'Get an approval', params: ApprovalParams, response: { 200: Approval, ...companyErrors() } } },
    async (request) => getApproval(ctx.db, request.membership.companyId, request.params.approval_id),
  )

  const decisions = [
    ['approve', ApproveBody, 'approveApproval', 'Approve', 'new_budget_cents sets the budget of a budget_override.'],
    ['reject', RejectBody, 'rejectApproval', 'Reject', 'Rejecting a hire terminates the pending agent.'],
  ] as const
  for (const [decision, body, operationId, summary, description] of decisions) {
    app.post(
      `/approvals/:approval_id/${decision}`,
      {
        schema: {
          tags, operationId, summary: `${summary} a pending approval`, description,
          params: ApprovalParams, body, response: { 200: Approval, ...companyErrors(), ...errors(400) },
        },
      },
      async (request) => {
        const input = request.body ?? {}
        const actor = userActor(request) as Parameters<typeof decideApproval>[4]
        return decideApproval(ctx, request.membership.companyId, request.params.approval_id, { ...input, decision }, actor)
      },
    )
  }
}
