import { type Static, Type } from 'typebox'
import { Cents, Nullable, NullableText, NullableUuid, StringEnum, Timestamp, Uuid, OrNull } from './common.ts'
import { BranchName, Check, Checks } from './work.ts'

// Projects have no delete: a project is archived (`status`).

export const PROJECT_STATUSES = ['active', 'paused', 'completed', 'archived'] as const
export const ProjectStatus = StringEnum(PROJECT_STATUSES)
export type ProjectStatus = Static<typeof ProjectStatus>

const Name = Type.String({ minLength: 1, maxLength: 100 })
// `repository` is checked by repositoryProblem (contract/repository.ts): the forms runners clone.
const fields = {
  description: Type.Optional(NullableText),
  repository: Type.Optional(NullableText),
  monthly_budget_cents: Type.Optional(Cents),
  // Work products (API-DECISIONS.md "Work products"): where approved work is merged, the
  // checks runners run after the agent, and who reviews.
  default_branch: Type.Optional(BranchName),
  checks: Type.Optional(Checks),
  require_checks: Type.Optional(Type.Boolean()),
  merge_on_approve: Type.Optional(Type.Boolean()),
  reviewer_agent_id: Type.Optional(NullableUuid),
}
/** A `status` sent on create is ignored: a new project is always active. */
// SPEC.md: `status` is accepted on update only; on create it is taken and ignored (a project starts active).
export const ProjectCreateBody = Type.Object({
  name: Name,
  ...fields,
  status: Type.Optional(Type.Unknown({ description: 'ignored: a new project is active (SPEC.md)' })),
})
export type ProjectCreate = Static<typeof ProjectCreateBody>
export const ProjectPatchBody = Type.Object({ name: Type.Optional(Name), ...fields, status: Type.Optional(ProjectStatus) })
export type ProjectUpdate = Static<typeof ProjectPatchBody>

export const Project = Type.Object({
  id: Uuid,
  company_id: Uuid,
  name: Type.String(),
  description: OrNull(Type.String()),
  repository: OrNull(Type.String()),
  monthly_budget_cents: Type.Integer(),
  status: ProjectStatus,
  default_branch: Type.String(),
  checks: Type.Array(Check),
  require_checks: Type.Boolean(),
  merge_on_approve: Type.Boolean(),
  reviewer_agent_id: OrNull(Uuid),
  created_at: Timestamp,
  updated_at: Timestamp,
})
export type Project = Static<typeof Project>
