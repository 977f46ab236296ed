import { useQueryClient } from '@tanstack/react-query'
import { useNavigate, useSearch } from '@tanstack/react-router'
import { useEffect, useState } from 'react'
import type { Document, DocumentVersion } from '#src/client/types.ts'
import { documentSummary } from '#src/contract/documents.ts'
import { ErrorText } from '../components/ErrorText.tsx'
import { Field } from '../components/form.tsx'
import { Markdown } from '../components/Markdown.tsx'
import { api } from '../lib/api.ts'
import { useCompanyId } from '../lib/company.ts'
import { useNames } from '../lib/names.ts'
import { useFormat } from '../lib/preferences.tsx'
import { keys, useDocument, useDocuments, useDocumentVersions, useMembers, useProjects } from '../lib/queries.ts'
import { useSubmit } from '../lib/useForm.ts'

// The company's knowledge base: documents listed newest first or found by full-text search, a
// tag to narrow them, one open beside the list (rendered Markdown, who wrote it, its versions),
// and an editor with a preview. Agents read every document through their tools; they write the
// ones they created, their own memory, and those marked agent-editable here.

type Search = { q?: string; tag?: string; doc?: string }

export function DocumentsPage() {
  const companyId = useCompanyId()
  const search = useSearch({ strict: false }) as Search
  const navigate = useNavigate()
  // Changes the search parameters named, keeping the others as they are by then.
  const go = (change: Search) =>
    void navigate({ to: '/c/$companyId/documents', params: { companyId }, search: (prev: Search) => ({ ...prev, ...change }), replace: true })
  const [query, setQuery] = useState(search.q ?? '')
  // The search follows the typing, a moment after it stops; a link or Back that changes it shows in the box.
  useEffect(() => {
    const timer = setTimeout(() => { if ((search.q ?? '') !== query.trim()) go({ q: query.trim() || undefined }) }, 250)
    return () => clearTimeout(timer)
  }, [query])
  useEffect(() => {
    if ((search.q ?? '') !== query.trim()) setQuery(search.q ?? '')
  }, [search.q])
  const docs = useDocuments(companyId, { q: search.q, tag: search.tag, limit: 200 })
  const [creating, setCreating] = useState(false)
  const tags = [...new Set((docs.data ?? []).flatMap((d) => d.tags).concat(search.tag ? [search.tag] : []))].sort()
  const selected = creating ? null : (search.doc ?? null)
  return (
    <>
      <div className="page-head">
        <h1>Documents</h1>
        <button className="primary" onClick={() => { setCreating(true); go({ doc: undefined }) }}>New document</button>
      </div>
      <div className="row" style={{ marginBottom: 12 }}>
        <input type="search" aria-label="Search documents" placeholder="Search titles and text…" value={query} onChange={(e) => setQuery(e.target.value)} maxLength={500} style={{ flex: '1 1 220px' }} />
        <select aria-label="Tag" value={search.tag ?? ''} onChange={(e) => go({ tag: e.target.value || undefined })} style={{ width: 'auto' }}>
          <option value="">All tags</option>
          {tags.map((t) => <option key={t} value={t}>{t}</option>)}
        </select>
      </div>
      <ErrorText error={docs.error} retry={() => void docs.refetch()} />
      <div className="docs-layout">
        <section className="panel" aria-label="Documents list">
          {docs.data?.length === 0 && <p className="empty">{search.q || search.tag ? 'No documents match.' : 'No documents yet. Agents add what they learn; people add handbooks and decisions.'}</p>}
          <ul className="doc-list">
            {(docs.data ?? []).map((doc) => (
              <li key={doc.id}>
                <button aria-current={doc.id === selected} onClick={() => { setCreating(false); go({ doc: doc.id }) }}>
                  <strong>{doc.title}</strong>{doc.pinned && <span className="muted small"> · pinned</span>}
                  <div className="summary">{documentSummary(doc.body) || '(empty)'}</div>
                  <div>{doc.tags.map((t) => <span key={t} className="tag">{t}</span>)}</div>
                </button>
              </li>
            ))}
          </ul>
        </section>
        <section className="panel" aria-label="Document">
          {creating
            ? <DocumentEditor companyId={companyId} onDone={(doc) => { setCreating(false); if (doc) go({ doc: doc.id }) }} />
            : selected
              ? <DocumentView key={selected} companyId={companyId} id={selected} onDeleted={() => go({ doc: undefined })} />
              : <p className="muted">Choose a document to read it.</p>}
        </section>
      </div>
    </>
  )
}

/** Who wrote a version: a person by name, or an agent by name. */
function useAuthor(companyId: string) {
  const names = useNames(companyId)
  const members = useMembers(companyId)
  return (userId: string | null, agentId: string | null) => {
    if (agentId) return `${names.agent(agentId) ?? 'an agent'} (agent)`
    if (userId) return members.data?.find((m) => m.user_id === userId)?.name ?? 'a person'
    return 'Shopfloor'
  }
}

function DocumentView({ companyId, id, onDeleted }: { companyId: string; id: string; onDeleted: () => void }) {
  const doc = useDocument(companyId, id)
  const client = useQueryClient()
  const format = useFormat()
  const names = useNames(companyId)
  const author = useAuthor(companyId)
  const [editing, setEditing] = useState(false)
  const [showVersions, setShowVersions] = useState(false)
  const remove = useSubmit(async () => {
    await api.documents.delete(companyId, id)
    await client.invalidateQueries({ queryKey: keys.company(companyId, 'documents') })
    onDeleted()
  })
  if (doc.error && !doc.data) return <ErrorText error={doc.error} retry={() => void doc.refetch()} />
  if (!doc.data) return <p className="muted">Loading…</p>
  const d = doc.data
  if (editing) return <DocumentEditor companyId={companyId} doc={d} onDone={() => setEditing(false)} />
  return (
    <article aria-label={d.title}>
      <div className="page-head" style={{ marginBottom: 8 }}>
        <h2 style={{ margin: 0 }}>{d.title}</h2>
        <div className="row">
          <button onClick={() => setEditing(true)}>Edit</button>
          <button onClick={() => setShowVersions((v) => !v)} aria-expanded={showVersions}>Versions</button>
          <button className="danger" disabled={remove.pending} onClick={() => window.confirm(`Delete “${d.title}” and its versions?`) && void remove.onSubmit()}>Delete</button>
        </div>
      </div>
      <p className="muted small">
        Version {d.version}, {format.relative(d.updated_at)} by {author(d.updated_by_user_id, d.updated_by_agent_id)}
        {d.project_id && <> · project {names.project(d.project_id) ?? 'deleted'}</>}
        {d.agent_id && <> · memory of {names.agent(d.agent_id) ?? 'an agent'}</>}
        {d.pinned && <> · pinned: named to every run{d.project_id ? ' of its project' : ''}</>}
        {d.agent_editable && <> · agents may edit it</>}
      </p>
      <div>{d.tags.map((t) => <span key={t} className="tag">{t}</span>)}</div>
      <ErrorText error={remove.error} />
      {showVersions && <Versions companyId={companyId} id={id} author={author} />}
      <Markdown text={d.body || '*This document is empty.*'} className="doc-body" />
    </article>
  )
}

function Versions({ companyId, id, author }: { companyId: string; id: string; author: ReturnType<typeof useAuthor> }) {
  const versions = useDocumentVersions(companyId, id)
  const format = useFormat()
  const [open, setOpen] = useState<DocumentVersion | null>(null)
  return (
    <section className="doc-versions" aria-label="Versions">
      <ErrorText error={versions.error} retry={() => void versions.refetch()} />
      <ol className="plain">
        {(versions.data ?? []).map((v) => (
          <li key={v.version}>
            <button className="link" onClick={() => setOpen(open?.version === v.version ? null : v)} aria-expanded={open?.version === v.version}>Version {v.version}</button>
            {' '}<span className="muted">{format.dateTime(v.created_at)} by {author(v.user_id, v.agent_id)}{v.run_id ? ' in a run' : ''}</span>
          </li>
        ))}
      </ol>
      {open && <div className="panel"><div className="muted small">Version {open.version}: {open.title}</div><Markdown text={open.body} /></div>}
    </section>
  )
}

/** Creates a document, or edits the one given (its version is sent, so a newer write is not overwritten). */
function DocumentEditor({ companyId, doc, onDone }: { companyId: string; doc?: Document; onDone: (doc?: Document) => void }) {
  const client = useQueryClient()
  const projects = useProjects(companyId)
  const [title, setTitle] = useState(doc?.title ?? '')
  const [body, setBody] = useState(doc?.body ?? '')
  const [tags, setTags] = useState((doc?.tags ?? []).join(', '))
  const [projectId, setProjectId] = useState(doc?.project_id ?? '')
  const [pinned, setPinned] = useState(doc?.pinned ?? false)
  const [agentEditable, setAgentEditable] = useState(doc?.agent_editable ?? false)
  const [preview, setPreview] = useState(false)
  const submit = useSubmit(async () => {
    const fields = {
      title: title.trim(), body, tags: [...new Set(tags.split(/[\s,]+/).map((t) => t.trim()).filter(Boolean))],
      project_id: projectId || null, pinned, agent_editable: agentEditable,
    }
    const saved = doc ? await api.documents.update(companyId, doc.id, { ...fields, version: doc.version }) : await api.documents.create(companyId, fields)
    await client.invalidateQueries({ queryKey: keys.company(companyId, 'documents') })
    onDone(saved)
  })
  return (
    <form className="doc-editor" onSubmit={submit.onSubmit} aria-label={doc ? `Edit ${doc.title}` : 'New document'}>
      <ErrorText error={submit.error} />
      <Field label="Title"><input required maxLength={200} autoFocus value={title} onChange={(e) => setTitle(e.target.value)} /></Field>
      <div className="row" role="tablist" aria-label="Editor" style={{ marginBottom: 6 }}>
        <button type="button" role="tab" aria-selected={!preview} className={preview ? '' : 'primary'} onClick={() => setPreview(false)}>Write</button>
        <button type="button" role="tab" aria-selected={preview} className={preview ? 'primary' : ''} onClick={() => setPreview(true)}>Preview</button>
      </div>
      {preview
        ? <div className="panel" aria-label="Preview"><Markdown text={body || '*Nothing to preview.*'} /></div>
        : <Field label="Text" hint="Markdown"><textarea value={body} onChange={(e) => setBody(e.target.value)} /></Field>}
      <Field label="Tags" hint="single words, separated by commas"><input value={tags} onChange={(e) => setTags(e.target.value)} placeholder="handbook, billing" /></Field>
      <Field label="Project">
        <select value={projectId} onChange={(e) => setProjectId(e.target.value)}>
          <option value="">The whole company</option>
          {(projects.data ?? []).map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
        </select>
      </Field>
      <label className="check"><input type="checkbox" checked={pinned} onChange={(e) => setPinned(e.target.checked)} /> Pinned: named (title and first line) to every agent’s run{projectId ? ' in this project' : ''}</label>
      <label className="check"><input type="checkbox" checked={agentEditable} onChange={(e) => setAgentEditable(e.target.checked)} /> Agent-editable: any agent may change it</label>
      <div className="actions">
        <button className="primary" type="submit" disabled={submit.pending}>{doc ? 'Save' : 'Create document'}</button>
        <button type="button" onClick={() => onDone()}>Cancel</button>
      </div>
    </form>
  )
}
