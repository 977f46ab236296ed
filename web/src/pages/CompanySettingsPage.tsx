import { useQueryClient } from '@tanstack/react-query'
import { Link } from '@tanstack/react-router'
import { useState } from 'react'
import type { Company } from '#src/client/types.ts'
import { ErrorText } from '../components/ErrorText.tsx'
import { api } from '../lib/api.ts'
import { useCompanyId } from '../lib/company.ts'
import { centsToInput, parseCents } from '../lib/format.ts'
import { keys, useCompany } from '../lib/queries.ts'
import { useForm, useSubmit } from '../lib/useForm.ts'
import { Field } from '../components/form.tsx'
import { People } from '../components/company/People.tsx'

export function CompanySettingsPage() {
  const companyId = useCompanyId()
  const company = useCompany(companyId)
  return (
    <>
      <div className="page-head"><h1>Company settings</h1></div>
      <ErrorText error={company.error} retry={() => void company.refetch()} />
      {company.data && <CompanyForm company={company.data} key={company.data.id} />}
      {company.data && <People company={company.data} />}
      {company.data && <Integrations company={company.data} />}
    </>
  )
}

function CompanyForm({ company }: { company: Company }) {
  const client = useQueryClient()
  const canEdit = company.role === 'owner' || company.role === 'admin'
  const form = useForm({ name: company.name, mission: company.mission ?? '', budget: centsToInput(company.monthly_budget_cents) })
  const [saved, setSaved] = useState(false)
  const submit = useSubmit(async () => {
    const budget = parseCents(form.values.budget)
    if (budget === null) throw new Error('Monthly budget: enter an amount such as 500 or 12.50.')
    setSaved(false)
    await api.companies.update(company.id, { name: form.values.name.trim(), mission: form.values.mission.trim() || null, monthly_budget_cents: budget })
    await Promise.all([client.invalidateQueries({ queryKey: keys.company(company.id, 'company') }), client.invalidateQueries({ queryKey: ['companies'] })])
    setSaved(true)
  })
  return (
    <form className="panel" onSubmit={submit.onSubmit}>
      {!canEdit && <p className="notice">Only the owner or an admin can change the company. Your role: {company.role ?? 'member'}.</p>}
      <ErrorText error={submit.error} />
      {saved && <p className="notice" role="status">Saved.</p>}
      <fieldset disabled={!canEdit} style={{ border: 0, padding: 0, margin: 0 }}>
        <Field label="Name"><input required maxLength={120} {...form.bind('name')} /></Field>
        <Field label="Mission"><textarea {...form.bind('mission')} /></Field>
        <div className="form-grid">
          <Field label="Monthly budget" hint="blank = no limit; not enforced"><input inputMode="decimal" {...form.bind('budget')} /></Field>
          <Field label="Task prefix"><input value={company.task_prefix} disabled /></Field>
        </div>
        <button className="primary" type="submit" disabled={submit.pending}>Save</button>
      </fieldset>
    </form>
  )
}

/** Where the company's data goes out: webhooks (owners and admins), and the export file (any member). */
function Integrations({ company }: { company: Company }) {
  const download = useSubmit(async () => {
    const document = await api.companies.export(company.id)
    const url = URL.createObjectURL(new Blob([JSON.stringify(document, null, 2)], { type: 'application/json' }))
    const link = Object.assign(window.document.createElement('a'), { href: url, download: `${company.task_prefix.toLowerCase()}-company-${new Date().toISOString().slice(0, 10)}.json` })
    link.click()
    URL.revokeObjectURL(url)
  })
  return (
    <section className="panel" aria-label="Integrations and data">
      <h2>Integrations and data</h2>
      <p>
        <Link to="/c/$companyId/webhooks" params={{ companyId: company.id }}>Webhooks</Link>
        <span className="muted"> — tell other systems about every change, as signed HTTP requests (owners and admins).</span>
      </p>
      <ErrorText error={download.error} />
      <div className="row">
        <button onClick={() => void download.onSubmit()} disabled={download.pending}>Export</button>
        <span className="muted small">
          A JSON file of the company's settings, agents, goals, projects, routines and tasks with comments (no runs, activity, keys
          or secrets), to import as a new company from the new-company page.
        </span>
      </div>
    </section>
  )
}
