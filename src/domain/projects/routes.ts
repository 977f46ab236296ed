import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { userActor } from '../../server/http/guards.ts'
import { cents, idParams, nullableText } from '../companies/json-schema.ts'
import { createProject, getProject, listProjects, PROJECT_STATUSES, type ProjectInput, updateProject } from './service.ts'

const name = { type: 'string', minLength: 1, maxLength: 100 } as const
// `repository` has no API limit; the column holds 500 characters (longer is a 422 from the database).
const fields = { description: nullableText, repository: nullableText, monthly_budget_cents: cents } as const
// A `status` sent on create is ignored: a new project is always active.
const createBody = { type: 'object', required: ['name'], properties: { name, ...fields } } as const
const patchBody = {
  type: 'object',
  properties: { name, ...fields, status: { type: 'string', enum: [...PROJECT_STATUSES] } },
} as const
const projectParams = idParams('project_id')
type Params = { project_id: string }

// Projects: list, create, get, update.
export async function projectRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const tags = ['projects']

  app.get('/projects', { schema: { tags, params: idParams() } }, async (request) => listProjects(ctx.db, request.membership.companyId))

  app.post('/projects', { schema: { tags, params: idParams(), body: createBody } }, async (request, reply) => {
    const input = request.body as ProjectInput & { name: string }
    const project = await write(ctx, (tx) => createProject(tx, request.membership.companyId, userActor(request), input))
    return reply.status(201).send(project)
  })

  app.get('/projects/:project_id', { schema: { tags, params: projectParams } }, async (request) =>
    getProject(ctx.db, request.membership.companyId, (request.params as Params).project_id),
  )

  app.patch('/projects/:project_id', { schema: { tags, params: projectParams, body: patchBody } }, async (request) =>
    write(ctx, (tx) =>
      updateProject(tx, request.membership.companyId, (request.params as Params).project_id, userActor(request), request.body as ProjectInput),
    ),
  )
}
