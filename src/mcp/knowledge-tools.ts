// The company's knowledge base as an agent's tools: search and read any document, write the ones
// its run credential may write (those it created, its memory, any marked agent-editable), and
// `remember`, which adds a note to the agent's own memory document: the next run of the agent
// starts with it (src/runner/prompt.ts). What an agent may write is decided by the API.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { ApiError, type ShopfloorClient } from '../client/index.ts'
import type * as T from '../client/types.ts'
import { isUuid } from '../contract/common.ts'
import { DOCUMENT_TITLE_MAX, documentSummary, SEARCH_QUERY_MAX } from '../contract/documents.ts'
import { attempt, type Identity, ToolError } from './tools.ts'

/** The most of a document one read_doc answers: a long one is read in parts, not all into the context. */
const READ_CHARS = 20_000

const documentRef = z.string().min(1).describe('the document’s id, or its exact title')
const tags = z.array(z.string().min(1).max(50).regex(/^[^\s,]+$/)).max(20)

/** `Title (id ..., tags a, b; version 3, updated ...): summary`. */
function line(doc: T.Document): string {
  const facts = [`id ${doc.id}`]
  if (doc.tags.length) facts.push(`tags ${doc.tags.join(', ')}`)
  facts.push(`version ${doc.version}, updated ${doc.updated_at}`)
  const summary = documentSummary(doc.body)
  return `- ${doc.title} (${facts.join('; ')})${summary ? `: ${summary}` : ''}`
}

export function registerKnowledgeTools(server: McpServer, client: ShopfloorClient, identity: () => Promise<Identity>): void {
  const companyId = async () => (await identity()).companyId

  /** A document by id, or by its exact title (any case). */
  async function find(ref: string): Promise<T.Document> {
    const co = await companyId()
    if (isUuid(ref)) return client.documents.get(co, ref)
    const wanted = ref.trim().toLowerCase()
    const candidates = await client.documents.list(co, { q: ref.slice(0, SEARCH_QUERY_MAX), limit: 200 })
    const found = candidates.filter((d) => d.title.toLowerCase() === wanted)
    if (found.length === 0) throw new ToolError(`No document is titled "${ref}": search_docs finds documents by their words`)
    if (found.length > 1) throw new ToolError(`${found.length} documents are titled "${ref}": give the id of the one you mean: ${found.map((d) => d.id).join(', ')}`)
    return found[0]
  }

  server.registerTool(
    'search_docs',
    {
      description:
        'Searches the company’s documents (its knowledge base: how things are done, decisions, notes) by words in their titles and bodies, best matches first. Answers one line each: title, id, tags, version and a one-line summary; read_doc gives the whole text.',
      inputSchema: z.strictObject({
        query: z.string().min(1).max(SEARCH_QUERY_MAX).optional().describe('words to find; "a phrase" in quotes, -word to leave out, or; leave out to list the newest documents'),
        tag: z.string().min(1).max(50).optional().describe('only documents with this tag'),
        project_id: z.string().uuid().optional().describe('only documents of this project (its id)'),
        limit: z.number().int().min(1).max(50).optional().describe('how many to list, 10 when left out'),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query, tag, project_id, limit }) =>
      attempt(async () => {
        const docs = await client.documents.list(await companyId(), { q: query, tag, project_id, limit: limit ?? 10 })
        return docs.length ? docs.map(line).join('\n') : 'No documents match.'
      }),
  )

  server.registerTool(
    'read_doc',
    {
      description: `The text (Markdown) of one document, with its title, tags and version: up to ${READ_CHARS.toLocaleString('en-US')} characters a call (a longer one says where to go on).`,
      inputSchema: z.strictObject({
        document: documentRef,
        from: z.number().int().min(0).optional().describe('the character to start at, for the rest of a long document; 0 when left out'),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ document, from = 0 }) =>
      attempt(async () => {
        const doc = await find(document)
        const tagged = doc.tags.length ? `, tags ${doc.tags.join(', ')}` : ''
        const head = `# ${doc.title}\n(id ${doc.id}, version ${doc.version}${tagged}, updated ${doc.updated_at})\n\n`
        if (from === 0 && doc.body.length <= READ_CHARS) return head + doc.body
        const part = doc.body.slice(from, from + READ_CHARS)
        const end = from + part.length
        const more = end < doc.body.length ? ` read_doc with from ${end} goes on.` : ''
        return `${head}[characters ${from.toLocaleString('en-US')}-${end.toLocaleString('en-US')} of ${doc.body.length.toLocaleString('en-US')}.${more}]\n\n${part}`
      }),
  )

  server.registerTool(
    'write_doc',
    {
      description:
        'Creates a document, or changes one you may write (one you created, or one a person marked agent-editable): each write is kept as a new version. Write what the company should know beyond this task: how something is done, a decision and why, a finding. For notes to your own future runs use remember.',
      inputSchema: z.strictObject({
        document: documentRef.optional().describe('the document to change (its id or exact title); leave out to create one'),
        title: z.string().min(1).max(DOCUMENT_TITLE_MAX).optional().describe('the title; needed to create'),
        body: z.string().optional().describe('the whole new text, Markdown (replaces the old text)'),
        tags: tags.optional().describe('single-word tags, replacing the old ones'),
        project_id: z.string().uuid().nullable().optional().describe('the project it belongs to (its id), null for the whole company'),
      }),
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    ({ document, ...fields }) =>
      attempt(async () => {
        const co = await companyId()
        if (document === undefined) {
          if (!fields.title) throw new ToolError('A new document needs a title')
          const doc = await client.documents.create(co, { ...fields, title: fields.title })
          return `Created ${doc.title} (id ${doc.id}, version ${doc.version}).`
        }
        const before = await find(document)
        const doc = await client.documents.update(co, before.id, fields)
        return doc.version === before.version ? `${doc.title} already said that (version ${doc.version}).` : `Updated ${doc.title} to version ${doc.version}.`
      }),
  )

  server.registerTool(
    'remember',
    {
      description:
        'Adds a note to your memory: a document of your own that every one of your future runs starts with. Keep notes short and lasting (a fact about the code, a person’s preference, a mistake not to repeat), not a log of this run.',
      inputSchema: z.strictObject({
        note: z.string().min(1).max(4000).describe('what to remember, one or a few sentences'),
        replace: z.boolean().optional().describe('true to replace the whole memory with this note (to tidy it up); by default the note is added at the end'),
      }),
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    ({ note, replace }) =>
      attempt(async () => {
        const { companyId: co, context } = await identity()
        if (!context) throw new ToolError('No run: only an agent’s run has a memory')
        const entry = note.trim()
        // Two runs of one agent may remember at once: a write against a version that moved on is retried.
        for (let attemptNo = 0; ; attemptNo++) {
          const [memory] = await client.documents.list(co, { agent_id: context.agent.id, limit: 1 })
          try {
            if (!memory) {
              await client.documents.create(co, { title: `Memory of ${context.agent.name}`, agent_id: context.agent.id, body: `- ${entry}\n` })
            } else {
              const kept = replace ? '' : memory.body.trimEnd()
              const body = `${kept ? `${kept}\n` : ''}- ${entry}\n`
              await client.documents.update(co, memory.id, { body, version: memory.version })
            }
            return replace ? 'Your memory now holds only this note.' : 'Remembered: your next runs start with this note.'
          } catch (err) {
            const raced = err instanceof ApiError && (err.code === 'VERSION_CONFLICT' || err.code === 'DOCUMENT_EXISTS')
            if (!raced || attemptNo >= 3) throw err
          }
        }
      }),
  )
}
