import { type Static, type TSchema, Type } from 'typebox'

// Building blocks of every resource's schemas. Request schemas are validated by the server's
// own Ajv (bodies strictly, no coercion; query strings and paths coerced: server/http/validation.ts),
// response schemas drive serialisation (a field a response schema does not list is not sent)
// and the OpenAPI document. This folder imports nothing of ours but its own files, so the server,
// the typed client and the web app can all stand on it.

export const Uuid = Type.String({ format: 'uuid' })

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A UUID in its text form (any case), as ids are written: to tell an id from a name or key. */
export function isUuid(value: string): boolean
/** For a value of any type, also says it is a string. */
export function isUuid(value: unknown): value is string
export function isUuid(value: unknown): boolean {
  return typeof value === 'string' && UUID.test(value)
}

/** ISO 8601 with microseconds and an offset, as the server writes every stamp. */
export const Timestamp = Type.String({ format: 'date-time' })
/** `YYYY-MM-DD`. */
export const DateOnly = Type.String({ format: 'date' })

/** `schema` or null: sending null clears an optional field. */
export function Nullable<S extends TSchema>(schema: S) {
  return Type.Union([schema, Type.Null()])
}

/**
 * In answers: a value or null, written as a type list rather than anyOf, so the serialiser
 * never has to decide which branch a value belongs to.
 */
export function OrNull<S extends TSchema>(schema: S) {
  const base = schema as unknown as { type: string; enum?: unknown[] }
  const types = Array.isArray(base.type) ? base.type : [base.type]
  return Type.Unsafe<Static<S> | null>({
    ...(schema as object),
    type: [...types, 'null'],
    ...(base.enum ? { enum: [...base.enum, null] } : {}),
  })
}

/** A string out of a closed list, checked as a string first (a number is a type error, not an enum one). */
export function StringEnum<const V extends string[]>(values: readonly [...V], options: Record<string, unknown> = {}) {
  return Type.Enum(values, { type: 'string', ...options })
}

/** A JSON object whose keys the API does not fix (audit changes, approval payloads, error details). */
export const FreeObject = Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true })

export const NullableUuid = Nullable(Uuid)
export const NullableText = Nullable(Type.String())
/** A timestamp as a client may send it (an offset is optional: without one it is read as UTC) or a plain date. */
export const TimestampInput = Type.Union([Type.String({ format: 'iso-date-time' }), Type.String({ format: 'date' })])
export const NullableTimestampInput = Type.Union([
  Type.String({ format: 'iso-date-time' }),
  Type.String({ format: 'date' }),
  Type.Null(),
])
/**
 * The most an amount (cents, tokens) may be: far beyond any real figure, and the sum of a
 * million of them still fits the database's bigint, so a larger one is a 422 naming its field
 * rather than the database's "out of range".
 */
export const MAX_AMOUNT = 1_000_000_000_000
export const Cents = Type.Integer({ minimum: 0, maximum: MAX_AMOUNT })

/** Path parameters of company data: the company plus the named ids, each a UUID (a bad id is a 422). */
export const CompanyParams = Type.Object({ company_id: Uuid })
export function IdParams<const K extends string>(name: K) {
  return Type.Object({ company_id: Uuid, [name]: Uuid } as { company_id: typeof Uuid } & { [P in K]: typeof Uuid })
}

/** `{type: ['object', 'null'], ...}`: a body that may be left out altogether (actions with options). */
export function OptionalBody<S extends TSchema>(object: S) {
  return Type.Unsafe<Static<S> | null>({ ...(object as object), type: ['object', 'null'] })
}

// --- Errors ---------------------------------------------------------------------------------

/** One problem of a 422, as Pydantic-style clients expect it. */
export const ValidationIssue = Type.Object({
  loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
  message: Type.String(),
  type: Type.String(),
  msg: Type.Optional(Type.String()),
  input: Type.Optional(Type.Unknown()),
})
export type ValidationIssue = Static<typeof ValidationIssue>

/** Every error the API answers: `{error: {code, message, details}}`; clients branch on `code`. */
export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Stable machine-readable code, e.g. VALIDATION_ERROR, NOT_FOUND' }),
      message: Type.String({ description: 'What went wrong, for people' }),
      details: Type.Unsafe<Record<string, unknown>>({
        type: 'object',
        additionalProperties: true,
        description: 'Extra facts; a 422 lists its problems in `errors`',
      }),
    }),
  },
  { $id: 'ErrorEnvelope', title: 'ErrorEnvelope', description: 'The one error answer of the API' },
)
export type ErrorEnvelope = Static<typeof ErrorEnvelope>

/** Reference to the shared ErrorEnvelope schema (registered once on the server). */
export const ErrorRef = Type.Unsafe<ErrorEnvelope>({ $ref: 'ErrorEnvelope#' })

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Refused: not possible in the current state, or a request the server does not take',
  401: 'Missing, invalid or expired credential',
  403: 'The caller may not do this',
  404: 'Not found, or not visible to the caller',
  409: 'Conflicts with the current state',
  413: 'Too large (PAYLOAD_TOO_LARGE names the field and its limit)',
  422: 'The request is malformed (VALIDATION_ERROR lists each problem)',
  429: 'Too many requests',
  500: 'Unexpected server error (INTERNAL_ERROR; logged with the request id)',
  503: 'The service is starting, shutting down or cannot reach its database; try again shortly',
}

type ErrorResponses<C extends number> = { [K in C]: typeof ErrorRef }

/** Response schemas for the error statuses a route answers, each the ErrorEnvelope. */
export function errors<const C extends number>(...codes: C[]): ErrorResponses<C> {
  const out: Record<number, unknown> = {}
  for (const code of codes) out[code] = Type.Unsafe<ErrorEnvelope>({ $ref: 'ErrorEnvelope#', description: ERROR_DESCRIPTIONS[code] })
  return out as ErrorResponses<C>
}

/** Statuses every route under /api/companies/{company_id} can answer (credential, membership, input). */
export const companyErrors = () => errors(401, 404, 422)

/** A 204 answer: no body. */
export const NoContent = Type.Unsafe<undefined>({ type: 'null', description: 'No content' })
