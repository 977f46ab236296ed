import { type Static, Type } from 'typebox'
import { Nullable, NullableText, NullableTimestampInput, NullableUuid, StringEnum, Timestamp, Uuid, OrNull } from './common.ts'

// Goals nest (parent_id) without cycles.

export const GOAL_STATUSES = ['planned', 'active', 'achieved', 'abandoned'] as const
export const GoalStatus = StringEnum(GOAL_STATUSES)
export type GoalStatus = Static<typeof GoalStatus>

const Title = Type.String({ minLength: 1, maxLength: 200 })
const fields = {
  description: Type.Optional(NullableText),
  status: Type.Optional(GoalStatus),
  parent_id: Type.Optional(NullableUuid),
  owner_agent_id: Type.Optional(NullableUuid),
  target_date: Type.Optional(NullableTimestampInput),
}
export const GoalCreateBody = Type.Object({ title: Title, ...fields })
export type GoalCreate = Static<typeof GoalCreateBody>
export const GoalPatchBody = Type.Object({ title: Type.Optional(Title), ...fields })
export type GoalUpdate = Static<typeof GoalPatchBody>

const goalFields = {
  id: Uuid,
  title: Type.String(),
  description: OrNull(Type.String()),
  status: GoalStatus,
  parent_id: OrNull(Uuid),
  owner_agent_id: OrNull(Uuid),
  target_date: OrNull(Timestamp),
  created_at: Timestamp,
}

/** A goal with the counts of its tasks (done and all). */
export const Goal = Type.Object({ ...goalFields, tasks_done: Type.Integer(), tasks_total: Type.Integer() })
export type Goal = Static<typeof Goal>

/** A goal in a run's goal chain: without the task counts. */
export const ChainGoal = Type.Object(goalFields)
export type ChainGoal = Static<typeof ChainGoal>
