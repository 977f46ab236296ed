import { type Static, Type } from 'typebox'
import { NullableUuid, StringEnum, Timestamp, Uuid, OrNull } from './common.ts'

// Task comments. `system` comments are written by the server only.

export const COMMENT_KINDS = ['comment', 'question', 'plan'] as const
export const CommentKind = StringEnum(COMMENT_KINDS)
export type CommentKind = Static<typeof CommentKind>

const Body = Type.String({ minLength: 1 })
export const CommentCreateBody = Type.Object({ body: Body, kind: Type.Optional(CommentKind), run_id: Type.Optional(NullableUuid) })
export type CommentCreate = Static<typeof CommentCreateBody>
export const CommentPatchBody = Type.Object({
  body: Type.Optional(Body),
  kind: Type.Optional(CommentKind),
  run_id: Type.Optional(NullableUuid),
})
export type CommentUpdate = Static<typeof CommentPatchBody>

export const CommentParams = Type.Object({ company_id: Uuid, task_ref: Type.String(), comment_id: Uuid })

export const Comment = Type.Object({
  id: Uuid,
  task_id: Uuid,
  kind: StringEnum([...COMMENT_KINDS, 'system']),
  body: Type.String(),
  author_user_id: OrNull(Uuid),
  author_agent_id: OrNull(Uuid),
  run_id: OrNull(Uuid),
  created_at: Timestamp,
  updated_at: Timestamp,
})
export type Comment = Static<typeof Comment>
