// Documents, the company's knowledge base: list and search, show (with its versions), write,
// delete. Bodies are Markdown; `--body -` reads one from standard input, `--body-file` from a file.
import fs from 'node:fs'
import type { Document, DocumentUpdate } from '../../../client/index.ts'
import { isUuid } from '../../../contract/common.ts'
import type { OptionSpec, OptionValues } from '../args.ts'
import { type Cli, type GroupSpec, flag, integer, list, longText, nullable, onOff, text } from '../cli.ts'
import { UsageError } from '../errors.ts'
import { details, table, time } from '../format.ts'

const FIELD_OPTIONS: OptionSpec[] = [
  { name: 'body', value: 'TEXT', help: 'the Markdown text (- reads it from standard input)' },
  { name: 'body-file', value: 'FILE', help: 'read the Markdown text from this file' },
  { name: 'tag', value: 'TAG', help: 'a tag (repeat, or separate with commas); none clears them', repeat: true },
  { name: 'project', value: 'PROJECT', help: 'the project it belongs to (name or id), or none' },
  { name: 'pinned', value: 'on|off', help: 'name it in the prompt of every run in its scope' },
  { name: 'agent-editable', value: 'on|off', help: 'let any agent write it' },
]

async function body(options: OptionValues): Promise<string | undefined> {
  const file = text(options, 'body-file')
  if (file !== undefined && options.body !== undefined) throw new UsageError('Give --body or --body-file, not both')
  if (file !== undefined) {
    try {
      return fs.readFileSync(file, 'utf8')
    } catch (error) {
      throw new UsageError(`Cannot read --body-file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`)
    }
  }
  const given = await longText(options, 'body')
  return given === null ? '' : given
}

async function fields(cli: Cli, options: OptionValues): Promise<DocumentUpdate> {
  const tags = list(options, 'tag')
  const project = nullable(options, 'project')
  return {
    body: await body(options),
    tags: tags && (tags.length === 1 && tags[0]!.toLowerCase() === 'none' ? [] : tags),
    project_id: project ? (await cli.findProject(project)).id : project,
    pinned: onOff(options, 'pinned'),
    agent_editable: onOff(options, 'agent-editable'),
  }
}

/** A document by id or exact title (case-insensitive), searched among the best matches of its words. */
async function findDocument(cli: Cli, ref: string): Promise<Document> {
  const companyId = await cli.companyId()
  if (isUuid(ref)) return cli.client.documents.get(companyId, ref)
  const wanted = ref.toLowerCase()
  const found = (await cli.client.documents.list(companyId, { q: ref.slice(0, 500), limit: 200 })).filter((d) => d.title.toLowerCase() === wanted)
  if (found.length === 1) return found[0]!
  if (found.length === 0) throw new UsageError(`No document titled "${ref}": give its title or id (documents list)`)
  throw new UsageError(`${found.length} documents are titled "${ref}": give the id of one (${found.map((d) => d.id).join(', ')})`)
}

const tags = (d: Document) => d.tags.join(', ')

export const documents: GroupSpec = {
  name: 'documents',
  summary: 'Documents: list and search, show, write, delete',
  commands: [
    {
      name: 'list',
      summary: 'List documents, newest first, or search them',
      args: ['[words...]'],
      notes: 'WORDS search titles and bodies ("a phrase", -not and or work), best matches first.',
      options: [
        { name: 'tag', value: 'TAG', help: 'only documents with this tag' },
        { name: 'project', value: 'PROJECT', help: 'only documents of this project (name or id)' },
        { name: 'agent', value: 'AGENT', help: "only this agent's memory (name or id)" },
        { name: 'pinned', help: 'only pinned documents' },
        { name: 'limit', value: 'N', help: 'at most N (1-200, default 50)' },
      ],
      async run(cli, { args, options }) {
        const project = text(options, 'project')
        const agent = text(options, 'agent')
        const rows = await cli.client.documents.list(await cli.companyId(), {
          q: args.words || undefined,
          tag: text(options, 'tag'),
          project_id: project && (await cli.findProject(project)).id,
          agent_id: agent && (await cli.findAgent(agent)).id,
          pinned: flag(options, 'pinned') || undefined,
          limit: integer(options, 'limit'),
        })
        await cli.print(rows, () =>
          table(rows, [
            { header: 'title', value: (d) => d.title },
            { header: 'tags', value: tags },
            { header: 'version', value: (d) => String(d.version), right: true },
            { header: 'updated', value: (d) => time(d.updated_at) },
            { header: 'id', value: (d) => d.id },
          ]),
        )
      },
    },
    {
      name: 'show',
      summary: 'Show a document and its text',
      args: ['<document>'],
      notes: 'DOCUMENT is a title or an id.',
      options: [{ name: 'versions', help: 'list its versions (who wrote each, and when) instead of the text' }],
      async run(cli, { args, options }) {
        const doc = await findDocument(cli, args.document!)
        if (flag(options, 'versions')) {
          const versions = await cli.client.documents.versions(await cli.companyId(), doc.id)
          const names = await cli.agentNames()
          await cli.print(versions, () =>
            table(versions, [
              { header: 'version', value: (v) => String(v.version), right: true },
              { header: 'by', value: (v) => (v.agent_id ? `${names.get(v.agent_id) ?? v.agent_id}${v.run_id ? ` (run ${v.run_id})` : ''}` : v.user_id ? 'a person' : '') },
              { header: 'title', value: (v) => v.title },
              { header: 'when', value: (v) => time(v.created_at) },
            ]),
          )
          return
        }
        await cli.print(doc, () =>
          `${details([
            ['Title', doc.title],
            ['Id', doc.id],
            ['Tags', tags(doc)],
            ['Version', String(doc.version)],
            ['Pinned', doc.pinned ? 'yes' : 'no'],
            ['Agent-editable', doc.agent_editable ? 'yes' : 'no'],
            ['Updated', time(doc.updated_at)],
          ])}\n\n${doc.body}`,
        )
      },
    },
    {
      name: 'create',
      summary: 'Write a new document',
      args: ['<title...>'],
      options: FIELD_OPTIONS,
      async run(cli, { args, options }) {
        const doc = await cli.client.documents.create(await cli.companyId(), { title: args.title!, ...(await fields(cli, options)) })
        await cli.print(doc, () => `Created document ${doc.title} (${doc.id})`)
      },
    },
    {
      name: 'update',
      summary: 'Change a document (each change is a new version)',
      args: ['<document>'],
      notes: 'DOCUMENT is a title or an id.',
      options: [{ name: 'title', value: 'TITLE', help: 'new title' }, ...FIELD_OPTIONS],
      async run(cli, { args, options }) {
        const change = { title: text(options, 'title'), ...(await fields(cli, options)) }
        if (Object.values(change).every((v) => v === undefined)) throw new UsageError('Nothing to change: give at least one option')
        const doc = await findDocument(cli, args.document!)
        // The version read goes with the write: someone else's newer version is a conflict, not overwritten.
        const updated = await cli.client.documents.update(await cli.companyId(), doc.id, { ...change, version: doc.version })
        await cli.print(updated, () => `Updated document ${updated.title}: version ${updated.version}`)
      },
    },
    {
      name: 'delete',
      summary: 'Delete a document and its versions',
      args: ['<document>'],
      notes: 'DOCUMENT is a title or an id.',
      confirm: (a) => `Delete document ${a.document}?`,
      async run(cli, { args }) {
        const doc = await findDocument(cli, args.document!)
        await cli.client.documents.delete(await cli.companyId(), doc.id)
        await cli.print({ deleted: doc.id }, () => `Deleted document ${doc.title}`)
      },
    },
  ],
}
