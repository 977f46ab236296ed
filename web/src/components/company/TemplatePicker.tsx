// Ready companies to start from (GET /api/templates): what each holds, and a button that makes
// a new company from it (POST /api/companies/import with the template's document).
import { useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { Company, CompanyExport, Template } from '#src/client/types.ts'
import { api } from '../../lib/api.ts'
import { useTemplates } from '../../lib/queries.ts'
import { ErrorText } from '../ErrorText.tsx'

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`

/** "5 agents, 2 goals, 1 project, 2 routines, 3 tasks" */
export function contents(document: CompanyExport): string {
  const parts: [number, string][] = [
    [document.agents?.length ?? 0, 'agent'], [document.goals?.length ?? 0, 'goal'], [document.projects?.length ?? 0, 'project'],
    [document.routines?.length ?? 0, 'routine'], [document.tasks?.length ?? 0, 'task'],
  ]
  return parts.filter(([n]) => n > 0).map(([n, one]) => plural(n, one)).join(', ') || 'nothing yet'
}

/** Makes a company from a document and refreshes the company list; the caller opens it. */
export function useImportCompany(onImported: (company: Company) => void) {
  const client = useQueryClient()
  const [pending, setPending] = useState(false)
  const [error, setError] = useState<unknown>(null)
  async function importDocument(document: CompanyExport) {
    setPending(true)
    setError(null)
    try {
      const company = await api.companies.import(document)
      await client.invalidateQueries({ queryKey: ['companies'] })
      onImported(company)
    } catch (caught) {
      setError(caught)
    } finally {
      setPending(false)
    }
  }
  return { importDocument, pending, error, setError }
}

export function TemplatePicker({ onImported }: { onImported: (company: Company) => void }) {
  const templates = useTemplates()
  const importing = useImportCompany(onImported)
  return (
    <>
      <ErrorText error={templates.error ?? importing.error} />
      {!templates.data && !templates.error && <p className="muted small">Loading templates…</p>}
      <div className="template-grid">
        {templates.data?.map((template) => (
          <TemplateCard key={template.id} template={template} pending={importing.pending} onPick={() => void importing.importDocument(template.document)} />
        ))}
      </div>
    </>
  )
}

function TemplateCard({ template, pending, onPick }: { template: Template; pending: boolean; onPick: () => void }) {
  const agents = (template.document.agents ?? []) as { name?: string; title?: string | null }[]
  return (
    <article className="panel template" aria-label={template.name}>
      <h3 style={{ marginTop: 0 }}>{template.name}</h3>
      <p>{template.description}</p>
      <p className="small muted">{contents(template.document)}</p>
      {agents.length > 0 && (
        <p className="small">{agents.map((a) => (a.title ? `${a.name} (${a.title})` : a.name)).join(', ')}</p>
      )}
      <button className="primary" onClick={onPick} disabled={pending}>Start from {template.name}</button>
    </article>
  )
}
