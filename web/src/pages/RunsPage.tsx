import { useState } from 'react'
import type { RunStatus } from '#src/client/types.ts'
import { ErrorText } from '../components/ErrorText.tsx'
import { AgentPicker } from '../components/Pickers.tsx'
import { RunTable } from '../components/RunTable.tsx'
import { useCompanyId } from '../lib/company.ts'
import { humanize } from '../lib/format.ts'
import { useRuns } from '../lib/queries.ts'

const STATUSES: RunStatus[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled']

export function RunsPage() {
  const companyId = useCompanyId()
  const [status, setStatus] = useState('')
  const [agentId, setAgentId] = useState('')
  const runs = useRuns(companyId, { ...(status ? { status: status as RunStatus } : {}), ...(agentId ? { agent_id: agentId } : {}) })
  return (
    <>
      <div className="page-head"><h1>Runs</h1></div>
      <div className="form-grid">
        <label className="field">Status
          <select value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">Any</option>
            {STATUSES.map((s) => <option key={s} value={s}>{humanize(s)}</option>)}
          </select>
        </label>
        <AgentPicker label="Agent" none="Any" value={agentId} onChange={setAgentId} />
      </div>
      <ErrorText error={runs.error} />
      {runs.data && <div className="panel"><RunTable companyId={companyId} runs={runs.data} /></div>}
    </>
  )
}
