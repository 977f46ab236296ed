import { useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { prefixFor } from '../lib/company.ts'
import { ErrorText } from '../components/ErrorText.tsx'
import { api } from '../lib/api.ts'
import { parseCents } from '../lib/format.ts'
import { useNavigate } from '@tanstack/react-router'
import { useForm, useSubmit } from '../lib/useForm.ts'
import { Field } from '../components/form.tsx'

export function NewCompanyPage() {
  const client = useQueryClient()
  const navigate = useNavigate()
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
    // A new company starts with the guided start (hire, connect a runner, first task).
    await navigate({ to: '/c/$companyId/start', params: { companyId: company.id } })
  })
  return (
    <>
      <div className="page-head"><h1>New company</h1></div>
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
    </>
  )
}
