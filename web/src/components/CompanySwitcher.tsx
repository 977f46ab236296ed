import { useCompanies } from '../lib/queries.ts'
import { navigate } from '../lib/router.tsx'

const NEW = '__new__'

/** Picks the open company, or goes to company creation. */
export function CompanySwitcher({ companyId }: { companyId: string | null }) {
  const companies = useCompanies()
  return (
    <label className="row" style={{ gap: 6 }}>
      <span className="sr-only">Company</span>
      <select
        aria-label="Company"
        value={companyId ?? ''}
        style={{ width: 'auto', maxWidth: '14rem' }}
        onChange={(event) => navigate(event.target.value === NEW ? '/companies/new' : `/c/${event.target.value}`)}
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
