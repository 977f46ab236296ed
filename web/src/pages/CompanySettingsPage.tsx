import { useQueryClient } from '@tanstack/react-query'
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
      <ErrorText error={company.error} />
      {company.data && <CompanyForm company={company.data} key={company.data.id} />}
      {company.data && <People company={company.data} />}
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
