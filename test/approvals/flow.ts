// Driving runs through the API for the approvals and insights tests.
import type { FastifyInstance } from 'fastify'
import { expect } from 'vitest'
import { call } from '../helpers.ts'

/** Wakes the agent, claims its run and reports it finished with the given cost; returns the run. */
export async function finishRun(
  app: FastifyInstance,
  token: string,
  companyId: string,
  agentId: string,
  report: { cost_cents?: number; status?: 'succeeded' | 'failed'; task_id?: string } = {},
) {
  const base = `/api/companies/${companyId}`
  const woken = await call(app, 'POST', `${base}/agents/${agentId}/wake`, { token, body: report.task_id ? { task_id: report.task_id } : {} })
  expect(woken.status).toBe(201)
  const claimed = await call(app, 'POST', `${base}/runs/claim`, { token, body: { runner_id: 'flow', agent_ids: [agentId] } })
  expect(claimed.status).toBe(200)
  const done = await call(app, 'PATCH', `${base}/runs/${claimed.body.run.id}`, {
    token,
    body: { runner_id: 'flow', status: report.status ?? 'succeeded', cost_cents: report.cost_cents ?? 0, tokens_in: 10, tokens_out: 5 },
  })
  expect(done.status).toBe(200)
  return done.body
}
