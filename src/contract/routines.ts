import { type Static, Type } from 'typebox'
import { NullableText, NullableUuid, OrNull, Timestamp, Uuid } from './common.ts'
import { Run } from './runs.ts'
import { Task } from './tasks.ts'

// Routines: a cron that makes a task for an agent and queues its run.

const fields = {
  project_id: Type.Optional(NullableUuid),
  description: Type.Optional(NullableText),
  enabled: Type.Optional(Type.Boolean()),
}
const AgentId = Uuid
const Title = Type.String({ minLength: 1, maxLength: 200 })
const Cron = Type.String({ minLength: 1, maxLength: 100 })

export const RoutineCreateBody = Type.Object({ agent_id: AgentId, title: Title, cron: Cron, ...fields })
export type RoutineCreate = Static<typeof RoutineCreateBody>
export const RoutinePatchBody = Type.Object({
  agent_id: Type.Optional(AgentId),
  title: Type.Optional(Title),
  cron: Type.Optional(Cron),
  ...fields,
})
export type RoutineUpdate = Static<typeof RoutinePatchBody>

export const Routine = Type.Object({
  id: Uuid,
  company_id: Uuid,
  agent_id: Uuid,
  project_id: OrNull(Uuid),
  title: Type.String(),
  description: OrNull(Type.String()),
  cron: Type.String(),
  enabled: Type.Boolean(),
  last_run_at: OrNull(Timestamp),
  created_at: Timestamp,
})
export type Routine = Static<typeof Routine>

export const RoutineTrigger = Type.Object({ routine: Routine, task: Task, run: Run })
export type RoutineTrigger = Static<typeof RoutineTrigger>
