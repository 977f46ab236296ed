import { useNavigate, useSearch } from '@tanstack/react-router'
import type { RunStatus } from '#src/client/types.ts'
import { ErrorText } from '../components/ErrorText.tsx'
import { AgentPicker } from '../components/Pickers.tsx'
import { RunTable } from '../components/RunTable.tsx'
import { useCompanyId } from '../lib/company.ts'
import { humanize } from '../lib/format.ts'
import { useRuns } from '../lib/queries.ts'

import { RUN_STATUSES } from '../lib/search.ts'

export function RunsPage() {
  const companyId = useCompanyId()
  // Filters live in the URL (?status=failed&agent_id=...), so a filtered list can be shared.
  const search = useSearch({ from: '/signed-in/c/$companyId/runs' })
  const navigate = useNavigate({ from: '/c/$companyId/runs' })
  const set = (patch: { status?: RunStatus; agent_id?: string }) => navigate({ search: (prev) => ({ ...prev, ...patch }), replace: true })
  const runs = useRuns(companyId, search)
  return (
    <>
      <div className="page-head"><h1>Runs</h1></div>
      <div className="form-grid filter-bar" role="search">
        <label className="field">Status
          <select value={search.status ?? ''} onChange={(e) => set({ status: (e.target.value || undefined) as RunStatus | undefined })}>
            <option value="">Any</option>
            {RUN_STATUSES.map((s) => <option key={s} value={s}>{humanize(s)}</option>)}
          </select>
        </label>
        <AgentPicker label="Agent" none="Any" value={search.agent_id ?? ''} onChange={(id) => set({ agent_id: id || undefined })} />
      </div>
      <ErrorText error={runs.error} retry={() => void runs.refetch()} />
      {runs.data && <div className="panel"><RunTable companyId={companyId} runs={runs.data} /></div>}
    </>
  )
}
