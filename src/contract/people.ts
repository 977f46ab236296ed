import { type Static, Type } from 'typebox'

// People of a company beyond SPEC.md (API-DECISIONS.md, "People"): invitations by email and
// the member changes an owner or admin makes.

export const MEMBER_ROLES = ['owner', 'admin', 'member'] as const
/** Roles an invitation can give: nobody is invited as an owner. */
export const INVITED_ROLES = ['admin', 'member'] as const

/** A role as a plain enum, so a wrong one is one 422 entry naming the allowed values. */
const role = <R extends readonly string[]>(roles: R) => Type.Unsafe<R[number]>({ type: 'string', enum: [...roles] })

export const InvitationCreate = Type.Object({
  email: Type.String({ format: 'email', maxLength: 320 }),
  role: role(INVITED_ROLES),
})
export type InvitationCreate = { email: string; role: (typeof INVITED_ROLES)[number] }

export const Invitation = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  role: role(INVITED_ROLES),
  status: Type.Literal('pending'),
  expires_at: Type.String(),
  created_at: Type.String(),
  invited_by_name: Type.Union([Type.String(), Type.Null()]),
})
export type Invitation = Omit<Static<typeof Invitation>, 'role'> & { role: (typeof INVITED_ROLES)[number] }

export const InvitationAccept = Type.Object({ token: Type.String({ minLength: 20, maxLength: 200 }) })

export const MemberPatch = Type.Object({ role: role(MEMBER_ROLES) })
export type MemberPatch = { role: (typeof MEMBER_ROLES)[number] }
