import { useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { Company, CompanyExport } from '#src/client/types.ts'
import { prefixFor } from '../lib/company.ts'
import { ErrorText } from '../components/ErrorText.tsx'
import { TemplatePicker, useImportCompany } from '../components/company/TemplatePicker.tsx'
import { api } from '../lib/api.ts'
import { parseCents } from '../lib/format.ts'
import { useNavigate } from '@tanstack/react-router'
import { useForm, useSubmit } from '../lib/useForm.ts'
import { Field } from '../components/form.tsx'

/** An empty company, one made from a template, or one imported from an export file. */
export function NewCompanyPage() {
  const navigate = useNavigate()
  // A new company starts with the guided start (hire, connect a runner, first task).
  const open = (company: Company) => navigate({ to: '/c/$companyId/start', params: { companyId: company.id } })
  return (
    <>
      <div className="page-head"><h1>New company</h1></div>
      <section aria-label="Empty company">
        <h2>An empty company</h2>
        <EmptyCompanyForm onCreated={open} />
      </section>
      <section aria-label="Start from a template">
        <h2>Or start from a template</h2>
        <p className="muted">A ready team with its goals and routines; rename it and change anything afterwards.</p>
        <TemplatePicker onImported={open} />
      </section>
      <section aria-label="Import from a file" style={{ marginTop: 'var(--gap)' }}>
        <h2>Or import from a file</h2>
        <ImportFile onImported={open} />
      </section>
    </>
  )
}

function EmptyCompanyForm({ onCreated }: { onCreated: (company: Company) => void }) {
  const client = useQueryClient()
  const form = useForm({ name: '', mission: '', budget: '', prefix: '' })
  // The prefix follows the name until someone types one.
  const [prefixTyped, setPrefixTyped] = useState(false)
  const prefix = prefixTyped ? form.values.prefix : prefixFor(form.values.name)
  const v = form.values
  const submit = useSubmit(async () => {
    const budget = parseCents(v.budget)
    if (budget === null) throw new Error('Monthly budget: enter an amount such as 500 or 12.50.')
    const company = await api.companies.create({ name: v.name.trim(), mission: v.mission.trim() || null, monthly_budget_cents: budget, task_prefix: prefix.trim() || 'SVC' })
    await client.invalidateQueries({ queryKey: ['companies'] })
    onCreated(company)
  })
  return (
    <form className="panel" style={{ maxWidth: 640 }} onSubmit={submit.onSubmit}>
      <ErrorText error={submit.error} />
      <Field label="Name"><input required maxLength={120} autoFocus {...form.bind('name')} /></Field>
      <Field label="Mission" hint="every agent reads it"><textarea {...form.bind('mission')} /></Field>
      <div className="form-grid">
        <Field label="Monthly budget" hint="blank = no limit"><input inputMode="decimal" placeholder="0.00" {...form.bind('budget')} /></Field>
        <label className="field">Task prefix <span className="hint">(cannot change later)</span>
          <input required maxLength={8} pattern="[A-Z][A-Z0-9]*" title="Capital letters and digits, starting with a letter" name="prefix" value={prefix}
            onChange={(e) => { setPrefixTyped(true); form.setValues({ ...v, prefix: e.target.value.toUpperCase() }) }} />
        </label>
      </div>
      <button className="primary" type="submit" disabled={submit.pending}>Create company</button>
    </form>
  )
}

/** A company exported elsewhere (Settings → Export, or `shopfloor companies export`), made again here. */
function ImportFile({ onImported }: { onImported: (company: Company) => void }) {
  const importing = useImportCompany(onImported)
  async function read(file: File) {
    let document: CompanyExport
    try {
      document = JSON.parse(await file.text())
    } catch {
      importing.setError(new Error(`${file.name} is not a JSON file. Choose a file made by Export in a company's settings.`))
      return
    }
    await importing.importDocument(document)
  }
  return (
    <div className="panel" style={{ maxWidth: 640 }}>
      <ErrorText error={importing.error} />
      <Field label="Company export file" hint="JSON, from Export in a company's settings">
        <input type="file" accept="application/json,.json" disabled={importing.pending} onChange={(e) => { const file = e.target.files?.[0]; if (file) void read(file) }} />
      </Field>
      <p className="muted small">The new company gets the agents, goals, projects, routines and tasks of the file; you become its owner.</p>
    </div>
  )
}
