import type { Document, DocumentCreate, DocumentListQuery, DocumentUpdate, DocumentVersion } from '../../contract/documents.ts'
import { DOCUMENT_BODY_MAX_BYTES } from '../../contract/documents.ts'
import type { Actor } from '../../server/actor.ts'
import type { Queryable } from '../../server/db/db.ts'
import type { Tx } from '../../server/db/write.ts'
import { AppError, notFound } from '../../server/errors.ts'
import { diff, recordAudit } from '../audit/record.ts'
import { findInCompany } from '../companies/references.ts'

// The company's knowledge base (API-DECISIONS.md "Company knowledge and skills"). Every write
// bumps `version` and keeps what the document then said in document_versions, with the person
// or the agent and run that wrote it. Search is PostgreSQL's full-text search over the stored
// `search` column (migration 180), ranked, on PostgreSQL and the embedded database alike.

export const DOCUMENT_COLUMNS = `id, company_id, title, body, tags, project_id, agent_id, pinned, agent_editable, version,
  created_by_user_id, created_by_agent_id, updated_by_user_id, updated_by_agent_id, created_at, updated_at`

/** Fields the audit trail follows; the body is named as changed, not copied (it may be 1 MiB). */
const AUDITED = ['title', 'tags', 'project_id', 'agent_id', 'pinned', 'agent_editable'] as const

/** 413 naming the field when a Markdown body is over 1 MiB (bytes of UTF-8, as stored). */
export function checkBodySize(field: string, body: string | undefined): void {
  if (body === undefined || body.length * 3 <= DOCUMENT_BODY_MAX_BYTES) return
  const bytes = Buffer.byteLength(body, 'utf8')
  if (bytes > DOCUMENT_BODY_MAX_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', `${field} is ${bytes} bytes: at most 1 MiB (${DOCUMENT_BODY_MAX_BYTES} bytes)`, {
      field, limit_bytes: DOCUMENT_BODY_MAX_BYTES, bytes,
    })
  }
}

function writer(actor: Actor): { userId: string | null; agentId: string | null; runId: string | null } {
  if (actor.type === 'user') return { userId: actor.userId, agentId: null, runId: null }
  if (actor.type === 'agent') return { userId: null, agentId: actor.agentId, runId: actor.runId }
  return { userId: null, agentId: null, runId: null }
}

export async function listDocuments(db: Queryable, companyId: string, query: DocumentListQuery): Promise<Document[]> {
  const where = ['company_id = $1']
  const params: unknown[] = [companyId]
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value)
    where.push(sql(`$${params.length}`))
  }
  if (query.tag !== undefined) add((n) => `tags @> ARRAY[${n}::text]`, query.tag)
  if (query.project_id !== undefined) add((n) => `project_id = ${n}`, query.project_id)
  if (query.agent_id !== undefined) add((n) => `agent_id = ${n}`, query.agent_id)
  if (query.pinned !== undefined) add((n) => `pinned = ${n}`, query.pinned)
  let order = 'updated_at DESC, id'
  if (query.q !== undefined) {
    add((n) => `search @@ websearch_to_tsquery('english', ${n})`, query.q)
    order = `ts_rank(search, websearch_to_tsquery('english', $${params.length})) DESC, ${order}`
  }
  params.push(query.limit ?? 50)
  return db.many<Document>(
    `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT $${params.length}`,
    params,
  )
}

export async function getDocument(db: Queryable, companyId: string, documentId: string, lock = false): Promise<Document> {
  const doc = await db.one<Document>(
    `SELECT ${DOCUMENT_COLUMNS} FROM documents WHERE id = $1 AND company_id = $2 ${lock ? 'FOR NO KEY UPDATE' : ''}`,
    [documentId, companyId],
  )
  if (!doc) throw notFound('Document')
  return doc
}

export async function listVersions(db: Queryable, companyId: string, documentId: string): Promise<DocumentVersion[]> {
  await getDocument(db, companyId, documentId)
  return db.many<DocumentVersion>(
    `SELECT document_id, version, title, body, tags, user_id, agent_id, run_id, created_at
       FROM document_versions WHERE document_id = $1 ORDER BY version DESC`,
    [documentId],
  )
}

async function keepVersion(tx: Tx, doc: Document, actor: Actor): Promise<void> {
  const who = writer(actor)
  await tx.query(
    `INSERT INTO document_versions (document_id, version, title, body, tags, user_id, agent_id, run_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [doc.id, doc.version, doc.title, doc.body, doc.tags, who.userId, who.agentId, who.runId],
  )
}

/** A new document; one with `agent_id` is that agent's memory, and an agent has one (409 DOCUMENT_EXISTS). */
export async function createDocument(tx: Tx, companyId: string, actor: Actor, input: DocumentCreate): Promise<Document> {
  checkBodySize('body', input.body)
  if (input.project_id) await findInCompany(tx, 'projects', companyId, input.project_id, 'Project')
  if (input.agent_id) await findInCompany(tx, 'agents', companyId, input.agent_id, 'Agent')
  const who = writer(actor)
  const doc = await tx.one<Document>(
    `INSERT INTO documents (company_id, title, body, tags, project_id, agent_id, pinned, agent_editable,
                            created_by_user_id, created_by_agent_id, updated_by_user_id, updated_by_agent_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $9, $10)
     ON CONFLICT (agent_id) WHERE agent_id IS NOT NULL DO NOTHING
     RETURNING ${DOCUMENT_COLUMNS}`,
    [companyId, input.title, input.body ?? '', input.tags ?? [], input.project_id ?? null, input.agent_id ?? null,
      input.pinned ?? false, input.agent_editable ?? false, who.userId, who.agentId],
  )
  if (!doc) throw new AppError('DOCUMENT_EXISTS', 'This agent already has a memory document: change it instead', { agent_id: input.agent_id })
  await keepVersion(tx, doc, actor)
  await recordAudit(tx, {
    companyId, actor, verb: 'created', entityType: 'document', entityId: doc.id, label: doc.title,
    changes: diff({}, doc, AUDITED),
  })
  tx.publish(companyId, { type: 'document.created', id: doc.id })
  return doc
}

/**
 * Changes the fields present as a new version; nothing is written when nothing changed. With
 * `version`, a document written since the writer read it is 409 VERSION_CONFLICT (so two
 * editors do not silently overwrite each other).
 */
export async function updateDocument(tx: Tx, companyId: string, documentId: string, actor: Actor, patch: DocumentUpdate): Promise<Document> {
  checkBodySize('body', patch.body)
  const before = await getDocument(tx, companyId, documentId, true)
  if (patch.version !== undefined && patch.version !== before.version) {
    throw new AppError('VERSION_CONFLICT', `The document is at version ${before.version}, not ${patch.version}: read it again`, {
      version: before.version,
    })
  }
  if (patch.project_id) await findInCompany(tx, 'projects', companyId, patch.project_id, 'Project')
  const after = { ...before }
  for (const field of ['title', 'body', 'tags', 'project_id', 'pinned', 'agent_editable'] as const) {
    if (patch[field] !== undefined) (after as Record<string, unknown>)[field] = patch[field]
  }
  const changes = diff(before, after, AUDITED)
  if (after.body !== before.body) changes.body = [`version ${before.version}`, `version ${before.version + 1}`]
  if (Object.keys(changes).length === 0) return before
  const who = writer(actor)
  const doc = (await tx.one<Document>(
    `UPDATE documents SET title = $3, body = $4, tags = $5, project_id = $6, pinned = $7, agent_editable = $8,
            version = version + 1, updated_by_user_id = $9, updated_by_agent_id = $10, updated_at = now()
      WHERE id = $1 AND company_id = $2 RETURNING ${DOCUMENT_COLUMNS}`,
    [documentId, companyId, after.title, after.body, after.tags, after.project_id, after.pinned, after.agent_editable, who.userId, who.agentId],
  ))!
  await keepVersion(tx, doc, actor)
  await recordAudit(tx, { companyId, actor, verb: 'updated', entityType: 'document', entityId: doc.id, label: doc.title, changes })
  tx.publish(companyId, { type: 'document.updated', id: doc.id })
  return doc
}

export async function deleteDocument(tx: Tx, companyId: string, documentId: string, actor: Actor): Promise<void> {
  const doc = await getDocument(tx, companyId, documentId, true)
  await tx.query('DELETE FROM documents WHERE id = $1 AND company_id = $2', [documentId, companyId])
  await recordAudit(tx, { companyId, actor, verb: 'deleted', entityType: 'document', entityId: doc.id, label: doc.title })
  tx.publish(companyId, { type: 'document.deleted', id: doc.id })
}
