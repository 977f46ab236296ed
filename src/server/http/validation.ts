import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'
import type { ValidationIssue } from '../errors.ts'
import { closeObjects } from './closed-objects.ts'

// Two validators. JSON bodies are checked strictly: no type coercion (a "5" is not 5), every
// problem reported, unknown fields refused unless a schema says additionalProperties: true
// (closed-objects.ts).
// Query strings and path parameters arrive as text, so they are coerced (and a single value
// becomes a list where the schema wants a list, for repeatable parameters such as `status`).
function makeAjv(coerce: boolean) {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce ? 'array' : false,
    removeAdditional: false,
    useDefaults: true,
    strict: false,
    // Keeps the offending value on each error, reported as `input`.
    verbose: true,
  })
  ;(addFormats as any).default ? (addFormats as any).default(ajv) : (addFormats as any)(ajv)
  return ajv
}

const bodyAjv = makeAjv(false)
const textAjv = makeAjv(true)

/**
 * Each route's validator is compiled on the route's first request rather than when the server
 * starts: compiling all of them took about 0.3 s of every start (every test server, every
 * operator command that builds the app), and most processes use few routes.
 */
export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv
  let compiled: ValidateFunction | undefined
  // Fastify reads `errors` off the function it was given after each call.
  const validate = (data: unknown) => {
    compiled ??= ajv.compile(httpPart === 'body' ? closeObjects(schema) : schema)
    const valid = compiled(data)
    validate.errors = compiled.errors
    return valid
  }
  validate.errors = null as ValidateFunction['errors']
  return validate
}

const WHERE: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' }

const TYPES: Record<string, (e: ErrorObject) => string> = {
  required: () => 'missing',
  additionalProperties: () => 'extra_forbidden',
  type: (e) => `${(e.params as any).type}_type`,
  minLength: () => 'string_too_short',
  maxLength: () => 'string_too_long',
  minimum: () => 'greater_than_equal',
  maximum: () => 'less_than_equal',
  exclusiveMinimum: () => 'greater_than',
  exclusiveMaximum: () => 'less_than',
  pattern: () => 'string_pattern_mismatch',
  format: (e) => ((e.params as any).format === 'uuid' ? 'uuid_parsing' : `${(e.params as any).format}_parsing`),
  enum: () => 'enum',
  const: () => 'literal_error',
  maxItems: () => 'too_long',
  minItems: () => 'too_short',
}

function describe(e: ErrorObject): string {
  const p = e.params as any
  switch (e.keyword) {
    case 'required': return 'Field required'
    case 'additionalProperties': return 'Extra inputs are not permitted'
    case 'type': return `Input should be a valid ${p.type === 'integer' ? 'integer' : p.type}`
    case 'minLength': return `String should have at least ${p.limit} character${p.limit === 1 ? '' : 's'}`
    case 'maxLength': return `String should have at most ${p.limit} characters`
    case 'minimum': return `Input should be greater than or equal to ${p.limit}`
    case 'maximum': return `Input should be less than or equal to ${p.limit}`
    case 'pattern': return `String should match pattern '${p.pattern}'`
    case 'format': return p.format === 'uuid' ? 'Input should be a valid UUID' : `Input should be a valid ${p.format}`
    case 'enum': return `Input should be ${(p.allowedValues as unknown[]).map((v) => `'${v}'`).join(', ')}`
    case 'maxItems': return `List should have at most ${p.limit} items`
    case 'minItems': return `List should have at least ${p.limit} items`
    default: return e.message ?? 'Invalid value'
  }
}

/** Ajv errors -> [{loc, message, type, msg, input}], one per problem. */
export function toIssues(errors: ErrorObject[], httpPart: string | undefined): ValidationIssue[] {
  const where = WHERE[httpPart ?? 'body'] ?? httpPart ?? 'body'
  const issues: ValidationIssue[] = []
  for (const e of errors) {
    // anyOf/oneOf report every branch and then a summary; the branch errors are enough.
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if') continue
    const loc: (string | number)[] = [where]
    for (const part of e.instancePath.split('/').slice(1)) {
      const key = part.replace(/~1/g, '/').replace(/~0/g, '~')
      loc.push(/^\d+$/.test(key) ? Number(key) : key)
    }
    const p = e.params as any
    if (e.keyword === 'required') loc.push(p.missingProperty)
    if (e.keyword === 'additionalProperties') loc.push(p.additionalProperty)
    const message = describe(e)
    issues.push({ loc, message, type: (TYPES[e.keyword] ?? (() => e.keyword))(e), msg: message, input: e.data })
  }
  // Nullable fields (anyOf [X, null]) produce one error per branch at the same place.
  const seen = new Set<string>()
  return issues.filter((i) => {
    const key = JSON.stringify(i.loc) + i.type
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
