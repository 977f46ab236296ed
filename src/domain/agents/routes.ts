import type { FastifyInstance } from 'fastify'
import { AdapterConfig } from '../../contract/adapter-config.ts'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { userActor } from '../../server/http/guards.ts'
import { cents, idParams, nullable, nullableText, nullableUuid } from '../companies/json-schema.ts'
import { actingUserId } from '../tasks/acting.ts'
import { type HireInput, hireAgent } from './hire.ts'
import { pauseAgent, resumeAgent, terminateAgent } from './lifecycle.ts'
import { orgChart } from './org.ts'
import { getAgent, listAgents } from './read.ts'
import { type AgentPatch, updateAgent } from './update.ts'

// 0 or more, within the stored integer (a larger number is a 422, not a database error).
const count = { type: 'integer', minimum: 0, maximum: 2147483647 } as const
const text = (maxLength?: number) => nullable({ type: 'string', ...(maxLength ? { maxLength } : {}) })

// Create-time limits; on update title, role and adapter are not length-checked (SPEC.md).
const commonFields = {
  reports_to_id: nullableUuid,
  heartbeat_cron: nullableText,
  instructions: nullableText,
  capabilities: nullable({ type: 'array' }),
  monthly_budget_cents: cents,
  adapter_config: AdapterConfig,
  max_run_cost_cents: count,
  max_runs_per_hour: count,
  pause_on_repeat: { type: 'boolean' },
  heartbeat_skip_idle: { type: 'boolean' },
} as const
const name = { type: 'string', minLength: 1, maxLength: 100 } as const

const hireBody = {
  type: 'object',
  required: ['name'],
  properties: {
    name,
    title: text(120),
    role: text(50),
    adapter: text(50),
    ...commonFields,
    request_approval: { type: 'boolean' },
  },
} as const

const patchBody = {
  type: 'object',
  properties: { name, title: text(), role: text(), adapter: text(), ...commonFields },
} as const

const listQuery = {
  type: 'object',
  properties: { include_terminated: { type: 'boolean', default: false } },
} as const

const agentParams = idParams('agent_id')
type AgentParams = { agent_id: string }

// Agents: hire, list, get, update, pause, resume, terminate, org chart. (Waking an agent
// queues a run and lives with the runs.)
export async function agentRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const tags = ['agents']

  app.post('/agents', { schema: { tags, params: idParams(), body: hireBody } }, async (request, reply) => {
    const { companyId } = request.membership
    const actor = userActor(request)
    const agent = await write(ctx, (tx) => hireAgent(tx, companyId, actor, actingUserId(actor), request.body as HireInput))
    return reply.status(201).send(agent)
  })

  app.get('/agents', { schema: { tags, params: idParams(), querystring: listQuery } }, async (request) => {
    const { include_terminated } = request.query as { include_terminated: boolean }
    return listAgents(ctx.db, request.membership.companyId, include_terminated)
  })

  app.get('/org', { schema: { tags, params: idParams() } }, async (request) => orgChart(ctx.db, request.membership.companyId))

  app.get('/agents/:agent_id', { schema: { tags, params: agentParams } }, async (request) =>
    getAgent(ctx.db, request.membership.companyId, (request.params as AgentParams).agent_id),
  )

  app.patch('/agents/:agent_id', { schema: { tags, params: agentParams, body: patchBody } }, async (request) => {
    const { agent_id } = request.params as AgentParams
    return write(ctx, (tx) => updateAgent(tx, request.membership.companyId, agent_id, userActor(request), request.body as AgentPatch))
  })

  for (const [action, change] of [['pause', pauseAgent], ['resume', resumeAgent], ['terminate', terminateAgent]] as const) {
    app.post(`/agents/:agent_id/${action}`, { schema: { tags, params: agentParams } }, async (request) => {
      const { agent_id } = request.params as AgentParams
      return write(ctx, (tx) => change(tx, request.membership.companyId, agent_id, userActor(request)))
    })
  }
}
