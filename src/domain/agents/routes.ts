import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { Agent, AgentPatchBody, HireBody, ListAgentsQuery, OrgNode } from '../../contract/agents.ts'
import { CompanyParams, companyErrors, errors, IdParams } from '../../contract/common.ts'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { userActor } from '../../server/http/guards.ts'
import { actingUserId } from '../tasks/acting.ts'
import { hireAgent } from './hire.ts'
import { pauseAgent, resumeAgent, terminateAgent } from './lifecycle.ts'
import { orgChart } from './org.ts'
import { getAgent, listAgents } from './read.ts'
import { updateAgent } from './update.ts'

const AgentParams = IdParams('agent_id')

// Agents: hire, list, get, update, pause, resume, terminate, org chart. (Waking an agent
// queues a run and lives with the runs.)
export async function agentRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['agents']

  app.post(
    '/agents',
    {
      schema: {
        tags, operationId: 'hireAgent', summary: 'Hire an agent',
        description: 'With request_approval the agent waits in pending_approval until a hire_agent approval is decided.',
        params: CompanyParams, body: HireBody, response: { 201: Agent, ...companyErrors(), ...errors(400) },
      },
    },
    async (request, reply) => {
      const { companyId } = request.membership
      const actor = userActor(request)
      const agent = await write(ctx, (tx) => hireAgent(tx, companyId, actor, actingUserId(actor), request.body))
      return reply.status(201).send(agent)
    },
  )

  app.get(
    '/agents',
    {
      schema: {
        tags, operationId: 'listAgents', summary: 'List agents',
        params: CompanyParams, querystring: ListAgentsQuery, response: { 200: Type.Array(Agent), ...companyErrors() },
      },
    },
    async (request) => listAgents(ctx.db, request.membership.companyId, request.query.include_terminated ?? false),
  )

  app.get(
    '/org',
    {
      schema: {
        tags, operationId: 'getOrgChart', summary: 'The reporting tree of the non-terminated agents',
        params: CompanyParams, response: { 200: Type.Array(OrgNode), ...companyErrors() },
      },
    },
    async (request) => orgChart(ctx.db, request.membership.companyId),
  )

  app.get(
    '/agents/:agent_id',
    {
      schema: {
        tags, operationId: 'getAgent', summary: 'Get an agent',
        params: AgentParams, response: { 200: Agent, ...companyErrors() },
      },
    },
    async (request) => getAgent(ctx.db, request.membership.companyId, request.params.agent_id),
  )

  app.patch(
    '/agents/:agent_id',
    {
      schema: {
        tags, operationId: 'updateAgent', summary: 'Update an agent',
        params: AgentParams, body: AgentPatchBody, response: { 200: Agent, ...companyErrors(), ...errors(400) },
      },
    },
    async (request) =>
      write(ctx, (tx) => updateAgent(tx, request.membership.companyId, request.params.agent_id, userActor(request), request.body)),
  )

  const actions = [
    ['pause', pauseAgent, 'pauseAgent', 'Pause an agent'],
    ['resume', resumeAgent, 'resumeAgent', 'Resume a paused agent'],
    ['terminate', terminateAgent, 'terminateAgent', 'Terminate an agent and cancel its queued and running runs'],
  ] as const
  for (const [action, change, operationId, summary] of actions) {
    app.post(
      `/agents/:agent_id/${action}`,
      { schema: { tags, operationId, summary, params: AgentParams, response: { 200: Agent, ...companyErrors(), ...errors(400) } } },
      async (request) => write(ctx, (tx) => change(tx, request.membership.companyId, request.params.agent_id, userActor(request))),
    )
  }
}
