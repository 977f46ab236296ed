// Records made through the API, for tests whose subject is something else. Each helper fails
// loudly (with the response body) when the API refuses, so a broken fixture is easy to see.
import type { FastifyInstance } from 'fastify'
import { call } from './helpers.ts'

async function created(app: FastifyInstance, token: string, url: string, body: unknown) {
  const r = await call(app, 'POST', url, { token, body })
  if (r.status !== 201) throw new Error(`POST ${url} answered ${r.status}: ${JSON.stringify(r.body)}`)
  return r.body
}

let made = 0

/** A company owned by the token's user; name defaults to a unique one, prefix to SVC. */
export function createCompany(app: FastifyInstance, token: string, body: Record<string, unknown> = {}) {
  return created(app, token, '/api/companies', { name: `Company ${++made}`, ...body })
}

/** An agent hired into the company (idle unless body.request_approval). */
export function hireAgent(app: FastifyInstance, token: string, companyId: string, body: Record<string, unknown> = {}) {
  return created(app, token, `/api/companies/${companyId}/agents`, { name: `Agent ${++made}`, ...body })
}

/** A task in the company (status todo unless given). */
export function createTask(app: FastifyInstance, token: string, companyId: string, body: Record<string, unknown> = {}) {
  return created(app, token, `/api/companies/${companyId}/tasks`, { title: `Task ${++made}`, ...body })
}
