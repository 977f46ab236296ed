// The last touches to the OpenAPI document @fastify/swagger builds from the route schemas, made
// once here so that every route (new ones too) gets them without a line of its own:
//  - records are named components (`Task`, `Agent`, `Run`, ...): a generated client gets a type
//    per record instead of one anonymous shape per operation;
//  - every operation declares what any route can answer: 500 (an unexpected error), 503 for
//    /api paths (starting, shutting down: http/availability.ts), and 401 and 403 for one that
//    needs a credential (an agent's run credential is refused what its agent has no right to);
//  - request bodies say `additionalProperties: false` where the server refuses unknown fields
//    (http/closed-objects.ts).
import * as accounts from '../../contract/accounts.ts'
import * as activity from '../../contract/activity.ts'
import * as agents from '../../contract/agents.ts'
import * as apiKeys from '../../contract/api-keys.ts'
import * as approvals from '../../contract/approvals.ts'
import * as comments from '../../contract/comments.ts'
import { errors } from '../../contract/common.ts'
import * as companies from '../../contract/companies.ts'
import * as goals from '../../contract/goals.ts'
import * as insights from '../../contract/insights.ts'
import * as people from '../../contract/people.ts'
import * as projects from '../../contract/projects.ts'
import * as routines from '../../contract/routines.ts'
import * as runners from '../../contract/runners.ts'
import * as runs from '../../contract/runs.ts'
import * as tasks from '../../contract/tasks.ts'
import * as webhooks from '../../contract/webhooks.ts'
import { closeObjects } from './closed-objects.ts'

type Json = Record<string, any>

/** Records named as components: the contract's answer records, by their export name. */
const RECORD_MODULES = [accounts, activity, agents, apiKeys, approvals, comments, companies, goals, insights, people, projects, routines, runners, runs, tasks, webhooks]
const NOT_RECORDS = /(Body|Query|Params|Create|Patch|Accept)$/

/**
 * Key-sorted JSON of a schema as the document shows it: equal text, equal schema. @fastify/swagger
 * writes `const: x` as `enum: [x]` and drops `$id`; TypeBox's own markers are not JSON.
 */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return v
    const { $id: _id, const: constant, ...rest } = v
    const plain: Record<string, unknown> = constant === undefined ? rest : { ...rest, enum: [constant] }
    return Object.fromEntries(Object.keys(plain).sort().map((k) => [k, plain[k]]))
  })
}

function namedRecords(): Map<string, string> {
  const byText = new Map<string, string>()
  for (const module of RECORD_MODULES) {
    for (const [name, schema] of Object.entries<any>(module)) {
      if (!/^[A-Z]/.test(name) || NOT_RECORDS.test(name) || schema?.type !== 'object' || !schema.properties) continue
      const text = canonical(JSON.parse(JSON.stringify(schema)))
      if (!byText.has(text)) byText.set(text, name)
    }
  }
  return byText
}

/** Replaces every schema equal to a named record with a $ref, collecting the records used. */
function nameRecords(doc: Json): void {
  const byText = namedRecords()
  const used = new Map<string, Json>()
  const visit = (node: any, isRoot = false): any => {
    if (Array.isArray(node)) return node.map((n) => visit(n))
    if (!node || typeof node !== 'object') return node
    if (!isRoot && node.type === 'object') {
      const name = byText.get(canonical(node))
      if (name) {
        if (!used.has(name)) {
          used.set(name, node)
          used.set(name, visit(node, true))
        }
        return { $ref: `#/components/schemas/${name}` }
      }
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, visit(v)]))
  }
  doc.paths = visit(doc.paths)
  doc.components.schemas = { ...doc.components.schemas, ...Object.fromEntries([...used].sort(([a], [b]) => a.localeCompare(b))) }
}

/** A response as @fastify/swagger writes one: the error envelope with its description. */
function errorResponse(status: 401 | 403 | 500 | 503): Json {
  const schema = (errors(status) as any)[status]
  return { description: schema.description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } }
}

function declareStatuses(doc: Json): void {
  for (const [path, operations] of Object.entries<Json>(doc.paths)) {
    for (const operation of Object.values<Json>(operations)) {
      if (!operation || typeof operation !== 'object' || !operation.responses) continue
      const needsCredential = operation.security === undefined || operation.security.length > 0
      const add = [...(needsCredential ? [401, 403] as const : []), 500 as const, ...(path.startsWith('/api/') ? [503 as const] : [])]
      for (const status of add) operation.responses[status] ??= errorResponse(status)
      operation.responses = Object.fromEntries(Object.entries(operation.responses).sort(([a], [b]) => a.localeCompare(b)))
    }
  }
}

function closeBodies(doc: Json): void {
  for (const operations of Object.values<Json>(doc.paths)) {
    for (const operation of Object.values<Json>(operations)) {
      for (const media of Object.values<Json>(operation?.requestBody?.content ?? {})) {
        if (media.schema) media.schema = closeObjects(media.schema)
      }
    }
  }
}

export function finishDocument<T extends Json>(doc: T): T {
  closeBodies(doc)
  nameRecords(doc)
  declareStatuses(doc)
  return doc
}
