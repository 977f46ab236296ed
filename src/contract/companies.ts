import { type Static, Type } from 'typebox'
import { MEMBER_ROLES } from './people.ts'
import { Cents, Nullable, NullableText, StringEnum, Timestamp, Uuid, OrNull } from './common.ts'

// Companies and their members.

export const Role = StringEnum(MEMBER_ROLES)
export type Role = Static<typeof Role>

const Name = Type.String({ minLength: 1, maxLength: 120 })
const TaskPrefix = Type.String({ minLength: 1, maxLength: 8, pattern: '^[A-Z][A-Z0-9]*$' })

export const CompanyCreateBody = Type.Object({
  name: Name,
  mission: Type.Optional(NullableText),
  monthly_budget_cents: Type.Optional(Cents),
  task_prefix: Type.Optional(TaskPrefix),
})
export type CompanyCreate = Static<typeof CompanyCreateBody>

/** A task_prefix other than the current one is a 422; the same value is ignored. */
export const CompanyPatchBody = Type.Object({
  name: Type.Optional(Name),
  mission: Type.Optional(NullableText),
  monthly_budget_cents: Type.Optional(Cents),
  task_prefix: Type.Optional(TaskPrefix),
})
export type CompanyUpdate = Static<typeof CompanyPatchBody>

export const Company = Type.Object({
  id: Uuid,
  name: Type.String(),
  mission: OrNull(Type.String()),
  monthly_budget_cents: Type.Integer(),
  task_prefix: Type.String(),
  created_at: Timestamp,
  /** The caller's role in the company, when known. */
  role: OrNull(Role),
})
export type Company = Static<typeof Company>

export const Member = Type.Object({
  user_id: Uuid,
  name: Type.String(),
  email: Type.String(),
  avatar_url: OrNull(Type.String()),
  role: Role,
  created_at: Timestamp,
})
export type Member = Static<typeof Member>
