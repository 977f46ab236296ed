import { type Static, Type } from 'typebox'
import { OrNull, StringEnum, Timestamp, Uuid } from './common.ts'

// The audit trail, newest first, paged by `before` (a row's created_at, unique per company).

export const ENTITY_TYPES = ['company', 'agent', 'task', 'comment', 'goal', 'project', 'routine', 'run', 'approval', 'member', 'webhook', 'document', 'skill'] as const
export type EntityType = (typeof ENTITY_TYPES)[number]

export const ActivityQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  /** A row's created_at; like every timestamp, one without an offset is read as UTC. */
  before: Type.Optional(Type.String({ format: 'iso-date-time' })),
  /** With `entity_id`: only the events of that one record, such as a task's status and assignee changes. */
  entity_type: Type.Optional(StringEnum([...ENTITY_TYPES], { description: 'Only events of this record type; needs entity_id' })),
  entity_id: Type.Optional(Type.String({ format: 'uuid', description: 'Only events of this record; needs entity_type' })),
})
export type ActivityQuery = Static<typeof ActivityQuery>

/** Field-level changes {field: [old, new]}. */
export type Changes = Record<string, [unknown, unknown]>

export const AuditEvent = Type.Object({
  id: Uuid,
  actor_type: StringEnum(['user', 'agent', 'system']),
  actor_name: Type.String(),
  actor_user_id: OrNull(Uuid),
  actor_agent_id: OrNull(Uuid),
  verb: Type.String(),
  entity_type: Type.String(),
  entity_id: OrNull(Uuid),
  label: OrNull(Type.String()),
  changes: Type.Unsafe<Changes>({ type: 'object', additionalProperties: true, description: '{field: [old, new]}' }),
  run_id: OrNull(Uuid),
  created_at: Timestamp,
})
export type AuditEvent = Static<typeof AuditEvent>
