import { useNavigate } from '@tanstack/react-router'
import { useCompanies } from '../lib/queries.ts'

const NEW = '__new__'

/** Picks the open company, or goes to company creation. */
export function CompanySwitcher({ companyId }: { companyId: string | null }) {
  const companies = useCompanies()
  const navigate = useNavigate()
  return (
    <label className="row company-switcher" style={{ gap: 6 }}>
      <span className="sr-only">Company</span>
      <select
        aria-label="Company"
        value={companyId ?? ''}
        style={{ width: 'auto', maxWidth: '14rem' }}
        onChange={(event) => event.target.value === NEW ? navigate({ to: '/companies/new' }) : navigate({ to: '/c/$companyId', params: { companyId: event.target.value } })}
      >
        {!companyId && <option value="">Choose a company</option>}
        {(companies.data ?? []).map((company) => (
          <option key={company.id} value={company.id}>{company.name}</option>
        ))}
        <option value={NEW}>+ New company…</option>
      </select>
    </label>
  )
}
