// What an agent carries into its runs beyond its instructions: its skills (attach, detach, edit,
// or write a new one) and its memory, the document it keeps with the `remember` tool and starts
// every run with.
import { useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useState } from 'react'
import type { Agent, Skill, SkillFile } from '#src/client/types.ts'
import { api } from '../../lib/api.ts'
import { useFormat } from '../../lib/preferences.tsx'
import { keys, useDocuments, useSkills } from '../../lib/queries.ts'
import { useSubmit } from '../../lib/useForm.ts'
import { ErrorText } from '../ErrorText.tsx'
import { Field, FormDialog } from '../form.tsx'
import { Markdown } from '../Markdown.tsx'

export function AgentSkills({ companyId, agent }: { companyId: string; agent: Agent }) {
  const client = useQueryClient()
  const skills = useSkills(companyId)
  const [editing, setEditing] = useState<Skill | 'new' | null>(null)
  const [adding, setAdding] = useState('')
  const carried = agent.skills.map((id) => skills.data?.find((s) => s.id === id)).filter((s): s is Skill => Boolean(s))
  const others = (skills.data ?? []).filter((s) => !agent.skills.includes(s.id))
  const [error, setError] = useState<unknown>(null)
  const change = async (next: string[]) => {
    setError(null)
    try {
      await api.agents.update(companyId, agent.id, { skills: next })
      await client.invalidateQueries({ queryKey: keys.company(companyId, 'agents') })
    } catch (err) {
      setError(err)
    }
  }
  const terminated = agent.status === 'terminated'
  return (
    <section className="panel" aria-label="Skills">
      <div className="page-head" style={{ marginBottom: 8 }}>
        <h2 style={{ margin: 0 }}>Skills</h2>
        <button onClick={() => setEditing('new')}>New skill</button>
      </div>
      <p className="muted small">Instructions for kinds of work, installed for each run: where Claude Code reads them, or listed in the prompt with their path.</p>
      <ErrorText error={skills.error ?? error} retry={skills.error ? () => void skills.refetch() : undefined} />
      {carried.length === 0 && <p className="empty">No skills.</p>}
      <ul className="plain">
        {carried.map((skill) => (
          <li key={skill.id} className="row" style={{ justifyContent: 'space-between', padding: '4px 0' }}>
            <span><strong>{skill.name}</strong> <span className="muted small">{skill.description}</span></span>
            <span className="row">
              <button className="link small" onClick={() => setEditing(skill)}>Edit</button>
              {!terminated && <button className="link small" onClick={() => void change(agent.skills.filter((id) => id !== skill.id))} aria-label={`Detach ${skill.name}`}>Detach</button>}
            </span>
          </li>
        ))}
      </ul>
      {!terminated && others.length > 0 && (
        <div className="row" style={{ marginTop: 8 }}>
          <select aria-label="Skill to attach" value={adding} onChange={(e) => setAdding(e.target.value)} style={{ width: 'auto' }}>
            <option value="">Choose a skill…</option>
            {others.map((s) => <option key={s.id} value={s.id}>{s.name}</option>)}
          </select>
          <button disabled={!adding} onClick={() => { void change([...agent.skills, adding]); setAdding('') }}>Attach</button>
        </div>
      )}
      {editing && <SkillDialog companyId={companyId} skill={editing === 'new' ? undefined : editing} attachTo={editing === 'new' && !terminated ? agent : undefined} onClose={() => setEditing(null)} />}
    </section>
  )
}

/** Creates a skill (and attaches it to the agent given), or edits one; its files as path and text. */
function SkillDialog({ companyId, skill, attachTo, onClose }: { companyId: string; skill?: Skill; attachTo?: Agent; onClose: () => void }) {
  const client = useQueryClient()
  const [name, setName] = useState(skill?.name ?? '')
  const [description, setDescription] = useState(skill?.description ?? '')
  const [body, setBody] = useState(skill?.body ?? '')
  const [files, setFiles] = useState<SkillFile[]>(skill?.files ?? [])
  const submit = useSubmit(async () => {
    const fields = { name: name.trim(), description: description.trim(), body, files: files.filter((f) => f.path.trim()).map((f) => ({ ...f, path: f.path.trim() })) }
    if (skill) await api.skills.update(companyId, skill.id, fields)
    else {
      const created = await api.skills.create(companyId, fields)
      if (attachTo) await api.agents.update(companyId, attachTo.id, { skills: [...attachTo.skills, created.id] })
    }
    await client.invalidateQueries({ queryKey: keys.company(companyId) })
    onClose()
  })
  const setFile = (i: number, change: Partial<SkillFile>) => setFiles((all) => all.map((f, j) => (j === i ? { ...f, ...change } : f)))
  return (
    <FormDialog title={skill ? `Edit ${skill.name}` : 'New skill'} submit={submit} submitLabel={skill ? 'Save' : attachTo ? `Create and attach to ${attachTo.name}` : 'Create skill'} onClose={onClose}>
      <Field label="Name" hint="lower-case letters, digits and hyphens"><input required maxLength={64} pattern="[a-z0-9\-]{1,64}" value={name} onChange={(e) => setName(e.target.value)} autoFocus /></Field>
      <Field label="When to use it"><input required maxLength={1024} value={description} onChange={(e) => setDescription(e.target.value)} placeholder="Use when reviewing a change before it is handed in" /></Field>
      <Field label="Instructions" hint="Markdown, the SKILL.md"><textarea value={body} onChange={(e) => setBody(e.target.value)} rows={8} /></Field>
      <fieldset className="spend-limits">
        <legend>Files beside it</legend>
        {files.map((file, i) => (
          <div key={i} style={{ marginBottom: 8 }}>
            <div className="row">
              <input aria-label={`Path of file ${i + 1}`} value={file.path} onChange={(e) => setFile(i, { path: e.target.value })} placeholder="reference/checklist.md" style={{ flex: 1 }} />
              <button type="button" className="link small" onClick={() => setFiles((all) => all.filter((_, j) => j !== i))}>Remove</button>
            </div>
            <textarea aria-label={`Text of file ${i + 1}`} value={file.content} onChange={(e) => setFile(i, { content: e.target.value })} rows={3} />
          </div>
        ))}
        <button type="button" onClick={() => setFiles((all) => [...all, { path: '', content: '' }])}>Add a file</button>
      </fieldset>
    </FormDialog>
  )
}

export function AgentMemory({ companyId, agent }: { companyId: string; agent: Agent }) {
  const format = useFormat()
  const memory = useDocuments(companyId, { agent_id: agent.id, limit: 1 })
  const doc = memory.data?.[0]
  return (
    <section className="panel" aria-label="Memory">
      <div className="page-head" style={{ marginBottom: 8 }}>
        <h2 style={{ margin: 0 }}>Memory</h2>
        {doc && <Link to="/c/$companyId/documents" params={{ companyId }} search={{ doc: doc.id }}>Open in Documents</Link>}
      </div>
      <ErrorText error={memory.error} retry={() => void memory.refetch()} />
      {memory.data && !doc && <p className="empty">Nothing remembered yet. The agent adds notes with its remember tool; each run starts with them.</p>}
      {doc && (
        <>
          <p className="muted small">Version {doc.version}, {format.relative(doc.updated_at)}. Each run starts with its first 2,000 characters.</p>
          <Markdown text={doc.body || '*Empty.*'} />
        </>
      )}
    </section>
  )
}
