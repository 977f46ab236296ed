// A company as a portable document (API-DECISIONS.md "Operations"): GET .../export answers it,
// POST /api/companies/import and the ready templates (GET /api/templates) take it.
import { type Static, type TObject, type TProperties, type TSchema, Type } from 'typebox'
import { AgentPatchBody, HireBody } from './agents.ts'
import { CommentCreateBody, CommentPatchBody } from './comments.ts'
import { DocumentCreateBody } from './documents.ts'
import { GoalCreateBody, GoalPatchBody } from './goals.ts'
import { ProjectCreateBody, ProjectPatchBody } from './projects.ts'
import { RoutineCreateBody, RoutinePatchBody } from './routines.ts'
import { SkillCreateBody } from './skills.ts'
import { TaskCreateBody, TaskPatchBody } from './tasks.ts'

export const EXPORT_FORMAT = 'shopfloor.company'
export const EXPORT_VERSION = 1

/**
 * One record: the columns of its table, as the API spells them, minus what belongs to the
 * exporting installation (company, people, runs, timestamps of change). `id` is the record's
 * reference within the document (other records point at it through their `*_id` fields); an
 * import gives every record a new id. The fields the API takes are held to the API's rules for
 * changing them (its PATCH body: a record may hold what an update made, such as an agent title
 * longer than a hire allows), the references apart, which are the document's ids; further fields
 * are kept as they are, so any column added later travels without a change here.
 */
function record<P extends TProperties, R extends TProperties>(patch: TObject<P>, references: readonly (keyof P)[], required: R) {
  const checked = Object.fromEntries(Object.entries(patch.properties).filter(([name]) => !references.includes(name))) as Omit<P, keyof R>
  return Type.Object({ id: DocumentId, ...checked, ...required }, { additionalProperties: true })
}
const DocumentId = Type.String({ minLength: 1, maxLength: 100 })

export const ExportRecord = Type.Object({ id: DocumentId }, { additionalProperties: true })
// An agent's `skills` are the document ids of its skills (checked by the import).
export const ExportAgent = record(AgentPatchBody, ['reports_to_id', 'skills'], { name: HireBody.properties.name })
export const ExportGoal = record(GoalPatchBody, ['parent_id', 'owner_agent_id'], { title: GoalCreateBody.properties.title })
export const ExportProject = record(ProjectPatchBody, [], { name: ProjectCreateBody.properties.name })
export const ExportRoutine = record(RoutinePatchBody, ['agent_id', 'project_id'], { title: RoutineCreateBody.properties.title, cron: RoutineCreateBody.properties.cron })
export const ExportSkill = record(SkillCreateBody, [], { name: SkillCreateBody.properties.name, description: SkillCreateBody.properties.description })
/** A document without its versions; `agent_id` (a memory) and `project_id` are document ids. */
export const ExportDocument = record(DocumentCreateBody, ['project_id', 'agent_id'], { title: DocumentCreateBody.properties.title })
export const ExportComment = record(CommentPatchBody, ['run_id'], { body: CommentCreateBody.properties.body })

/** Numbers go on after the highest a document holds: it leaves room for a billion more tasks. */
export const MAX_TASK_NUMBER = 1_000_000_000

export const ExportTask = Type.Intersect([
  record(TaskPatchBody, ['assignee_agent_id', 'project_id', 'goal_id', 'parent_id', 'run_id'], { title: TaskCreateBody.properties.title }),
  Type.Object({
    number: Type.Integer({ minimum: 1, maximum: MAX_TASK_NUMBER }),
    comments: Type.Optional(Type.Array(ExportComment, { maxItems: 10_000 })),
  }),
])

const many = <T extends TSchema>(item: T, maxItems = 50_000) => Type.Optional(Type.Array(item, { maxItems }))

/** Tasks a document holds at most: twice the largest company the service is built for. */
export const IMPORT_MAX_TASKS = 200_000
/** The import's request body at most (other requests: 10 MiB): 100,000 tasks export to about 50 MB. */
export const IMPORT_BODY_LIMIT = 128 * 1024 * 1024

export const CompanyExport = Type.Object({
  format: Type.Literal(EXPORT_FORMAT),
  version: Type.Literal(EXPORT_VERSION),
  exported_at: Type.Optional(Type.String()),
  company: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 120 }),
    mission: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    monthly_budget_cents: Type.Optional(Type.Integer({ minimum: 0 })),
    task_prefix: Type.Optional(Type.String({ minLength: 1, maxLength: 8, pattern: '^[A-Z][A-Z0-9]*$' })),
  }, { additionalProperties: true }),
  agents: many(ExportAgent),
  goals: many(ExportGoal),
  projects: many(ExportProject),
  routines: many(ExportRoutine),
  tasks: many(ExportTask, IMPORT_MAX_TASKS),
  skills: many(ExportSkill, 1_000),
  documents: many(ExportDocument),
})
export type CompanyExport = Static<typeof CompanyExport>

/** The import body: a document, optionally with another name and task prefix for the new company. */
export const CompanyImport = Type.Intersect([
  CompanyExport,
  Type.Object({
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
    task_prefix: Type.Optional(Type.String({ minLength: 1, maxLength: 8, pattern: '^[A-Z][A-Z0-9]*$' })),
  }),
])
export type CompanyImport = Static<typeof CompanyImport>

/** A ready company to start from (GET /api/templates). */
export const Template = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  agents: Type.Integer(),
  document: CompanyExport,
})
export type Template = Static<typeof Template>
