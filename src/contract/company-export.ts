// A company as a portable document (API-DECISIONS.md "Operations"): GET .../export answers it,
// POST /api/companies/import and the ready templates (GET /api/templates) take it.
import { type Static, Type } from 'typebox'

export const EXPORT_FORMAT = 'shopfloor.company'
export const EXPORT_VERSION = 1

/**
 * One record: the columns of its table, as the API spells them, minus what belongs to the
 * exporting installation (company, people, runs, timestamps of change). `id` is the record's
 * reference within the document (other records point at it through their `*_id` fields); an
 * import gives every record a new id. Further fields are kept as they are, so agents' adapter
 * settings and any column added later travel without a change here.
 */
export const ExportRecord = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: true })

export const ExportComment = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }), body: Type.String() }, { additionalProperties: true })

export const ExportTask = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  number: Type.Integer({ minimum: 1 }),
  title: Type.String({ minLength: 1, maxLength: 300 }),
  comments: Type.Optional(Type.Array(ExportComment, { maxItems: 10_000 })),
}, { additionalProperties: true })

const many = <T extends typeof ExportRecord | typeof ExportTask>(item: T, maxItems = 50_000) => Type.Optional(Type.Array(item, { maxItems }))

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
  agents: many(ExportRecord),
  goals: many(ExportRecord),
  projects: many(ExportRecord),
  routines: many(ExportRecord),
  tasks: many(ExportTask, IMPORT_MAX_TASKS),
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
