import { useEffect, useState } from 'react'
import { AgentAvatar } from '../components/AgentAvatar.tsx'
import { HireDialog } from '../components/agents/HireDialog.tsx'
import { FavoriteButton } from '../components/agents/FavoriteButton.tsx'
import { Badge } from '../components/Badge.tsx'
import { ErrorText } from '../components/ErrorText.tsx'
import { useCompanyId } from '../lib/company.ts'
import { roleLabel } from '../lib/format.ts'
import { useFormat } from '../lib/preferences.tsx'
import { useAgents } from '../lib/queries.ts'
import { Link, useNavigate, useSearch } from '@tanstack/react-router'

export function AgentsPage() {
  const companyId = useCompanyId()
  const navigate = useNavigate()
  const format = useFormat()
  const [showTerminated, setShowTerminated] = useState(false)
  const agents = useAgents(companyId, showTerminated)
  const [hiring, setHiring] = useState(false)
  // Opened from the palette ("?new=1"): the dialog opens, and the address forgets it.
  const opened = useSearch({ from: '/signed-in/c/$companyId/agents' }).new
  const go = useNavigate()
  useEffect(() => {
    if (!opened) return
    setHiring(true)
    void go({ to: '.', search: {}, replace: true })
  }, [opened])
  return (
    <>
      <div className="page-head">
        <h1>Agents</h1>
        <div className="actions">
          <label className="check">
            <input type="checkbox" checked={showTerminated} onChange={(e) => setShowTerminated(e.target.checked)} /> Show terminated
          </label>
          <Link to="/c/$companyId/org" params={{ companyId }} className="button">Org chart</Link>
          <button className="primary" onClick={() => setHiring(true)}>Hire agent</button>
        </div>
      </div>
      <ErrorText error={agents.error} retry={() => void agents.refetch()} />
      {agents.data?.length === 0 && <p className="empty">No agents yet. Hire the first one.</p>}
      {agents.data && agents.data.length > 0 && (
        <div className="panel table-wrap">
          <table className="stack">
            <thead><tr><th /><th>Agent</th><th>Status</th><th className="hide-phone">Role</th><th>Spend this month</th><th className="hide-phone">Open tasks</th><th className="hide-phone">Last activity</th></tr></thead>
            <tbody>
              {agents.data.map((agent) => (
                <tr key={agent.id} className="clickable" onClick={() => navigate({ to: '/c/$companyId/agents/$agentId', params: { companyId, agentId: agent.id } })}>
                  <td className="lead"><FavoriteButton agentId={agent.id} name={agent.name} /></td>
                  <td className="free lead">
                    <span className="row" style={{ gap: 8, flexWrap: 'nowrap' }}>
                      <AgentAvatar agent={agent} />
                      <span><Link to="/c/$companyId/agents/$agentId" params={{ companyId, agentId: agent.id }} onClick={(e) => e.stopPropagation()}>{agent.name}</Link><br /><span className="muted small">{agent.title}</span></span>
                    </span>
                  </td>
                  <td data-label="Status"><Badge value={agent.status} /></td>
                  <td className="hide-phone">{agent.role ? roleLabel(agent.role) : '—'}</td>
                  <td data-label="Spend this month" className="nowrap">{format.money(agent.spend_mtd_cents)}{agent.monthly_budget_cents > 0 && <span className="muted"> / {format.money(agent.monthly_budget_cents)}</span>}</td>
                  <td className="hide-phone">{agent.open_tasks ?? 0}</td>
                  <td className="hide-phone muted">{format.relative(agent.last_activity)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {hiring && <HireDialog companyId={companyId} onClose={() => setHiring(false)} onHired={(agent) => navigate({ to: '/c/$companyId/agents/$agentId', params: { companyId, agentId: agent.id } })} />}
    </>
  )
}
