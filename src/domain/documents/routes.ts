import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { CompanyParams, companyErrors, errors, IdParams, NoContent } from '../../contract/common.ts'
import { Document, DocumentCreateBody, DocumentListQuery, DocumentPatchBody, DocumentVersion } from '../../contract/documents.ts'
import type { AppContext } from '../../server/context.ts'
import { write } from '../../server/db/write.ts'
import { userActor } from '../../server/http/guards.ts'
import { createDocument, deleteDocument, getDocument, listDocuments, listVersions, updateDocument } from './service.ts'

const DocumentParams = IdParams('document_id')

// Documents: list and search, create, get, update (a new version each time), delete, versions.
// What an agent may write through its run credential is decided in agents/rights.ts.
export async function documentRoutes(instance: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>()
  const tags = ['documents']

  app.get(
    '/documents',
    {
      schema: {
        tags, operationId: 'listDocuments', summary: 'List or search documents',
        description: 'Newest first; with `q`, the best matches of a full-text search of titles and bodies first.',
        params: CompanyParams, querystring: DocumentListQuery, response: { 200: Type.Array(Document), ...companyErrors() },
      },
    },
    async (request) => listDocuments(ctx.db, request.membership.companyId, request.query),
  )

  app.post(
    '/documents',
    {
      schema: {
        tags, operationId: 'createDocument', summary: 'Create a document',
        description: 'With `agent_id`, the agent’s memory (one per agent: 409 DOCUMENT_EXISTS). A body over 1 MiB is 413.',
        params: CompanyParams, body: DocumentCreateBody, response: { 201: Document, ...companyErrors(), ...errors(403, 409, 413) },
      },
    },
    async (request, reply) => {
      const doc = await write(ctx, (tx) => createDocument(tx, request.membership.companyId, userActor(request), request.body))
      return reply.status(201).send(doc)
    },
  )

  app.get(
    '/documents/:document_id',
    { schema: { tags, operationId: 'getDocument', summary: 'Get a document', params: DocumentParams, response: { 200: Document, ...companyErrors() } } },
    async (request) => getDocument(ctx.db, request.membership.companyId, request.params.document_id),
  )

  app.patch(
    '/documents/:document_id',
    {
      schema: {
        tags, operationId: 'updateDocument', summary: 'Update a document',
        description: 'Each change is a new version. With `version`, a document changed since is 409 VERSION_CONFLICT.',
        params: DocumentParams, body: DocumentPatchBody, response: { 200: Document, ...companyErrors(), ...errors(403, 409, 413) },
      },
    },
    async (request) =>
      write(ctx, (tx) => updateDocument(tx, request.membership.companyId, request.params.document_id, userActor(request), request.body)),
  )

  app.delete(
    '/documents/:document_id',
    {
      schema: {
        tags, operationId: 'deleteDocument', summary: 'Delete a document and its versions',
        params: DocumentParams, response: { 204: NoContent, ...companyErrors(), ...errors(403) },
      },
    },
    async (request, reply) => {
      await write(ctx, (tx) => deleteDocument(tx, request.membership.companyId, request.params.document_id, userActor(request)))
      return reply.status(204).send()
    },
  )

  app.get(
    '/documents/:document_id/versions',
    {
      schema: {
        tags, operationId: 'listDocumentVersions', summary: 'Every version of a document, newest first',
        params: DocumentParams, response: { 200: Type.Array(DocumentVersion), ...companyErrors() },
      },
    },
    async (request) => listVersions(ctx.db, request.membership.companyId, request.params.document_id),
  )
}
