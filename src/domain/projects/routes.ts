import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { CompanyParams, companyErrors, IdParams } from '../../contract/common.ts'
import { Project, ProjectCreateBody, ProjectPatchBody } from '../../contract/projects.ts'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { userActor } from '../../server/http/guards.ts'
import { checkRepository } from './repository.ts'
import { createProject, getProject, listProjects, updateProject } from './service.ts'

const ProjectParams = IdParams('project_id')

// Projects: list, create, get, update.
export async function projectRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['projects']

  app.get(
    '/projects',
    {
      schema: {
        tags, operationId: 'listProjects', summary: 'List projects',
        params: CompanyParams, response: { 200: Type.Array(Project), ...companyErrors() },
      },
    },
    async (request) => listProjects(ctx.db, request.membership.companyId),
  )

  app.post(
    '/projects',
    {
      schema: {
        tags, operationId: 'createProject', summary: 'Create a project',
        params: CompanyParams, body: ProjectCreateBody, response: { 201: Project, ...companyErrors() },
      },
    },
    async (request, reply) => {
      checkRepository(request.body.repository, ctx.config.allowLocalRepositories)
      const { status: _ignored, ...fields } = request.body // SPEC.md: status is taken on update only
      const project = await write(ctx, (tx) => createProject(tx, request.membership.companyId, userActor(request), fields))
      return reply.status(201).send(project)
    },
  )

  app.get(
    '/projects/:project_id',
    { schema: { tags, operationId: 'getProject', summary: 'Get a project', params: ProjectParams, response: { 200: Project, ...companyErrors() } } },
    async (request) => getProject(ctx.db, request.membership.companyId, request.params.project_id),
  )

  app.patch(
    '/projects/:project_id',
    {
      schema: {
        tags, operationId: 'updateProject', summary: 'Update a project', description: 'Archive it with status `archived`.',
        params: ProjectParams, body: ProjectPatchBody, response: { 200: Project, ...companyErrors() },
      },
    },
    async (request) => {
      checkRepository(request.body.repository, ctx.config.allowLocalRepositories)
      return write(ctx, (tx) => updateProject(tx, request.membership.companyId, request.params.project_id, userActor(request), request.body))
    },
  )
}
