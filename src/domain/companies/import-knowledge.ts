// The knowledge part of a company document: skills (written before the agents that carry them)
// and documents (after the agents and projects they belong to). Each gets a new id; an agent's
// `skills` and a document's `agent_id` and `project_id` name records of the same document.
// Documents arrive at version 1 (their history stays behind), written by nobody in particular.
import type { CompanyExport } from '../../contract/company-export.ts'
import { skillFilePathProblem } from '../../contract/skills.ts'
import type { Actor } from '../../server/actor.ts'
import type { Tx } from '../../server/db/write.ts'
import { invalidField } from '../../server/errors.ts'
import { diff, recordAudit } from '../audit/record.ts'
import { checkBodySize } from '../documents/service.ts'

type Ids = Map<string, string>

/** A class 22 (bad value) or 23 (constraint) error: the database refused what the document holds. */
const refused = (err: any) => typeof err?.code === 'string' && /^2[23]/.test(err.code)

/** Runs one insert of the record at `at`; a value the database refuses is a 422 naming the record. */
async function inserting<T>(at: string, insert: () => Promise<T>): Promise<T> {
  try {
    return await insert()
  } catch (err: any) {
    if (refused(err)) throw invalidField('body', at, `The record was refused: ${err.message}`)
    throw err
  }
}

/** Creates the document's skills; answers the new id of each by its document id. */
export async function importSkills(tx: Tx, companyId: string, actor: Actor, doc: CompanyExport, stamp: () => string): Promise<Ids> {
  const ids: Ids = new Map()
  const names = new Set<string>()
  for (const [i, skill] of (doc.skills ?? []).entries()) {
    const at = `skills.${i}`
    if (ids.has(skill.id)) throw invalidField('body', `${at}.id`, `Another skill has the id "${skill.id}"`, skill.id)
    if (names.has(skill.name)) throw invalidField('body', `${at}.name`, `Another skill is named "${skill.name}"`, skill.name)
    names.add(skill.name)
    checkBodySize(`${at}.body`, skill.body)
    for (const [j, file] of (skill.files ?? []).entries()) {
      const problem = skillFilePathProblem(file.path)
      if (problem) throw invalidField('body', `${at}.files.${j}.path`, `"${file.path}" ${problem}`, file.path)
      checkBodySize(`${at}.files[${j}].content`, file.content)
    }
    const row = await inserting(at, () => tx.one<{ id: string }>(
      `INSERT INTO skills (company_id, name, description, body, files, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $6) RETURNING id`,
      [companyId, skill.name, skill.description, skill.body ?? '', JSON.stringify(skill.files ?? []), stamp()],
    ))
    ids.set(skill.id, row!.id)
    await recordAudit(tx, { companyId, actor, verb: 'created', entityType: 'skill', entityId: row!.id, label: skill.name, changes: diff({}, skill, ['name', 'description']) })
  }
  return ids
}

/** An agent's `skills` of the document as the new skill ids; an unknown one is a 422 naming it. */
export function agentSkills(value: unknown, skills: Ids, at: string): string[] {
  if (value == null) return []
  if (!Array.isArray(value)) throw invalidField('body', `${at}.skills`, 'Should be a list of skill ids of the document', value)
  return value.map((ref, k) => {
    const id = typeof ref === 'string' ? skills.get(ref) : undefined
    if (!id) throw invalidField('body', `${at}.skills.${k}`, `No skill in the document has the id "${String(ref)}"`, ref)
    return id
  })
}

/** Creates the document's documents, each at version 1, once its agents and projects exist. */
export async function importDocuments(tx: Tx, companyId: string, actor: Actor, doc: CompanyExport, ids: Map<string, Ids>, stamp: () => string): Promise<void> {
  const memories = new Set<string>()
  for (const [i, d] of (doc.documents ?? []).entries()) {
    const at = `documents.${i}`
    checkBodySize(`${at}.body`, d.body)
    const refer = (table: 'agents' | 'projects', field: string, value: unknown): string | null => {
      if (value == null) return null
      const id = typeof value === 'string' ? ids.get(table)!.get(value) : undefined
      if (!id) throw invalidField('body', `${at}.${field}`, `No record of ${table} in the document has the id "${String(value)}"`, value)
      return id
    }
    const agentId = refer('agents', 'agent_id', (d as Record<string, unknown>).agent_id)
    if (agentId && memories.has(agentId)) throw invalidField('body', `${at}.agent_id`, 'An agent has one memory document: another document is already its memory', (d as Record<string, unknown>).agent_id)
    if (agentId) memories.add(agentId)
    const created = (d as Record<string, unknown>).created_at ?? stamp()
    const row = await inserting(at, () => tx.one<{ id: string }>(
      `INSERT INTO documents (company_id, title, body, tags, project_id, agent_id, pinned, agent_editable, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING id`,
      [companyId, d.title, d.body ?? '', d.tags ?? [], refer('projects', 'project_id', (d as Record<string, unknown>).project_id), agentId,
        d.pinned ?? false, d.agent_editable ?? false, created],
    ))
    await tx.query(
      `INSERT INTO document_versions (document_id, version, title, body, tags, created_at) VALUES ($1, 1, $2, $3, $4, $5)`,
      [row!.id, d.title, d.body ?? '', d.tags ?? [], created],
    )
    await recordAudit(tx, {
      companyId, actor, verb: 'created', entityType: 'document', entityId: row!.id, label: d.title,
      changes: diff({}, d, ['title', 'tags', 'pinned', 'agent_editable']),
    })
  }
}
