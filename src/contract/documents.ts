import { type Static, Type } from 'typebox'
import { NullableUuid, Timestamp, Uuid, OrNull } from './common.ts'

// Documents: the company's knowledge base of Markdown, searched with PostgreSQL's full-text
// search, every write kept as a version. A document with `agent_id` is that agent's memory
// (one per agent), written by the agent through the `remember` tool and given to it at the
// start of each run. `pinned` documents are named (title and summary) in the prompt of every
// run in their scope: the whole company, or the document's project.

/** A document's body, like every free text, is at most 1 MiB (413 PAYLOAD_TOO_LARGE beyond). */
export const DOCUMENT_BODY_MAX_BYTES = 1024 * 1024
/** Longer search queries are a 422: a query is a few words, not a document. */
export const SEARCH_QUERY_MAX = 500
export const DOCUMENT_TITLE_MAX = 200

const Title = Type.String({ minLength: 1, maxLength: DOCUMENT_TITLE_MAX })
const Tag = Type.String({ minLength: 1, maxLength: 50, pattern: '^[^\\s,]+$', description: 'One word: no spaces or commas' })

const fields = {
  body: Type.Optional(Type.String({ description: 'Markdown, at most 1 MiB' })),
  tags: Type.Optional(Type.Array(Tag, { maxItems: 20, uniqueItems: true })),
  project_id: Type.Optional(NullableUuid),
  pinned: Type.Optional(Type.Boolean({ description: 'Named in the prompt of every run in its scope (people only)' })),
  agent_editable: Type.Optional(Type.Boolean({ description: 'Any agent may write it (people only)' })),
}

export const DocumentCreateBody = Type.Object({
  title: Title,
  ...fields,
  agent_id: Type.Optional(NullableUuid),
})
export type DocumentCreate = Static<typeof DocumentCreateBody>

export const DocumentPatchBody = Type.Object({
  title: Type.Optional(Title),
  ...fields,
  version: Type.Optional(Type.Integer({ minimum: 1, description: 'The version the writer read: a newer one is 409 VERSION_CONFLICT' })),
})
export type DocumentUpdate = Static<typeof DocumentPatchBody>

export const DocumentListQuery = Type.Object({
  q: Type.Optional(Type.String({ minLength: 1, maxLength: SEARCH_QUERY_MAX, description: 'Words to find (web search syntax: "a phrase", -not, or)' })),
  tag: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  project_id: Type.Optional(Uuid),
  agent_id: Type.Optional(Uuid),
  pinned: Type.Optional(Type.Boolean()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
})
export type DocumentListQuery = Static<typeof DocumentListQuery>

export const Document = Type.Object({
  id: Uuid,
  company_id: Uuid,
  title: Type.String(),
  body: Type.String(),
  tags: Type.Array(Type.String()),
  project_id: OrNull(Uuid),
  agent_id: OrNull(Uuid),
  pinned: Type.Boolean(),
  agent_editable: Type.Boolean(),
  version: Type.Integer(),
  created_by_user_id: OrNull(Uuid),
  created_by_agent_id: OrNull(Uuid),
  updated_by_user_id: OrNull(Uuid),
  updated_by_agent_id: OrNull(Uuid),
  created_at: Timestamp,
  updated_at: Timestamp,
})
export type Document = Static<typeof Document>

export const DocumentVersion = Type.Object({
  document_id: Uuid,
  version: Type.Integer(),
  title: Type.String(),
  body: Type.String(),
  tags: Type.Array(Type.String()),
  user_id: OrNull(Uuid),
  agent_id: OrNull(Uuid),
  run_id: OrNull(Uuid),
  created_at: Timestamp,
})
export type DocumentVersion = Static<typeof DocumentVersion>

/** A document as a run's prompt names it: to be read on demand, not pasted. */
export const DocumentMention = Type.Object({ id: Uuid, title: Type.String(), summary: Type.String(), project_id: OrNull(Uuid) })
export type DocumentMention = Static<typeof DocumentMention>

/** How much of an agent's memory a run's prompt carries; the rest is read with read_doc. */
export const MEMORY_PROMPT_MAX = 2000
/** How many pinned documents a run is told about; search_docs finds the others. */
export const PINNED_PROMPT_MAX = 10

/** An agent's memory as a run gets it: the first MEMORY_PROMPT_MAX characters of its body. */
export const RunMemory = Type.Object({
  id: Uuid,
  title: Type.String(),
  body: Type.String(),
  truncated: Type.Boolean(),
  version: Type.Integer(),
  updated_at: Timestamp,
})
export type RunMemory = Static<typeof RunMemory>

const SUMMARY_MAX = 120

/**
 * One line about a document: its first line of prose (headings, list marks and emphasis
 * dropped; a heading only when there is no prose), cut at a word to 120 characters. Empty for
 * an empty body.
 */
export function documentSummary(body: string): string {
  let heading = ''
  for (const raw of body.split('\n', 200)) {
    const isHeading = /^\s{0,3}#{1,6}\s/.test(raw)
    const line = raw.replace(/^\s{0,3}(#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)/, '').replace(/[*_`]/g, '').trim()
    if (!line || /^(-{3,}|={3,}|```)/.test(line)) continue
    if (isHeading) {
      heading ||= line
      continue
    }
    return clip(line)
  }
  return clip(heading)
}

function clip(line: string): string {
  if (line.length <= SUMMARY_MAX) return line
  const cut = line.slice(0, SUMMARY_MAX - 1)
  const space = cut.lastIndexOf(' ')
  return `${space > 60 ? cut.slice(0, space) : cut}…`
}
