import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { companyErrors, errors, IdParams } from '../../contract/common.ts'
import { Run } from '../../contract/runs.ts'
import type { AppContext } from '../../server/context.ts'
import { startTrial } from '../runs/trial.ts'

// POST .../runs/{run_id}/trial: a new company's first run done by a simulated agent inside the
// server (domain/runs/trial.ts), for people who have no runner or agent CLI yet. Any member;
// a run credential may not (agents/rights.ts lets through only what it lists).
export async function trialRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  app.post(
    '/runs/:run_id/trial',
    {
      schema: {
        tags: ['runs'], operationId: 'trialRun', summary: "Do a company's first run with a simulated agent, inside the server",
        description: 'Answers the run, now running; it succeeds a few seconds later with a reply on its task, which moves to review. Only while the company has had no successful run.',
        params: IdParams('run_id'), response: { 202: Run, ...companyErrors(), ...errors(400) },
      },
    },
    async (request, reply) => reply.status(202).send(await startTrial(ctx, request.membership.companyId, request.params.run_id)),
  )
}
