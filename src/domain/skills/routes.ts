import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { CompanyParams, companyErrors, errors, IdParams, NoContent } from '../../contract/common.ts'
import { Skill, SkillCreateBody, SkillPatchBody } from '../../contract/skills.ts'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { userActor } from '../../server/http/guards.ts'
import { createSkill, deleteSkill, getSkill, listSkills, updateSkill } from './service.ts'

const SkillParams = IdParams('skill_id')

// Skills: list, create, get, update, delete. People manage them; agents read them.
export async function skillRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['skills']

  app.get(
    '/skills',
    {
      schema: {
        tags, operationId: 'listSkills', summary: 'List skills', description: 'By name.',
        params: CompanyParams, response: { 200: Type.Array(Skill), ...companyErrors() },
      },
    },
    async (request) => listSkills(ctx.db, request.membership.companyId),
  )

  app.post(
    '/skills',
    {
      schema: {
        tags, operationId: 'createSkill', summary: 'Create a skill',
        description: 'A name taken in the company is 409 SKILL_EXISTS; a file path with `..` or an absolute one is 422.',
        params: CompanyParams, body: SkillCreateBody, response: { 201: Skill, ...companyErrors(), ...errors(403, 409, 413) },
      },
    },
    async (request, reply) => {
      const skill = await write(ctx, (tx) => createSkill(tx, request.membership.companyId, userActor(request), request.body))
      return reply.status(201).send(skill)
    },
  )

  app.get(
    '/skills/:skill_id',
    { schema: { tags, operationId: 'getSkill', summary: 'Get a skill', params: SkillParams, response: { 200: Skill, ...companyErrors() } } },
    async (request) => getSkill(ctx.db, request.membership.companyId, request.params.skill_id),
  )

  app.patch(
    '/skills/:skill_id',
    {
      schema: {
        tags, operationId: 'updateSkill', summary: 'Update a skill', description: '`files` replaces the whole list.',
        params: SkillParams, body: SkillPatchBody, response: { 200: Skill, ...companyErrors(), ...errors(403, 409, 413) },
      },
    },
    async (request) => write(ctx, (tx) => updateSkill(tx, request.membership.companyId, request.params.skill_id, userActor(request), request.body)),
  )

  app.delete(
    '/skills/:skill_id',
    {
      schema: {
        tags, operationId: 'deleteSkill', summary: 'Delete a skill', description: 'Agents that carried it no longer do.',
        params: SkillParams, response: { 204: NoContent, ...companyErrors(), ...errors(403) },
      },
    },
    async (request, reply) => {
      await write(ctx, (tx) => deleteSkill(tx, request.membership.companyId, request.params.skill_id, userActor(request)))
      return reply.status(204).send()
    },
  )
}
