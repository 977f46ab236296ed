import type { OrgNode } from '#src/client/types.ts'
import { AgentAvatar } from '../components/AgentAvatar.tsx'
import { Badge } from '../components/Badge.tsx'
import { ErrorText } from '../components/ErrorText.tsx'
import { useCompanyId } from '../lib/company.ts'
import { useFormat } from '../lib/preferences.tsx'
import { useOrg } from '../lib/queries.ts'
import { Link } from '@tanstack/react-router'
import { useState } from 'react'
import { OrgChart } from '../components/org/OrgChart.tsx'

/** Agents a phone's chart still shows readably. */
const PHONE_CHART_AGENTS = 3
const count = (nodes: OrgNode[]): number => nodes.reduce((n, node) => n + 1 + count(node.reports), 0)

/** The reporting tree as a chart (zoom, pan, drag to re-parent), or as an indented list. */
export function OrgPage() {
  const companyId = useCompanyId()
  const org = useOrg(companyId)
  // On a phone a chart of more than a few agents zooms out until its cards cannot be read: the list then.
  const [chosen, setView] = useState<'chart' | 'list' | null>(null)
  const view = chosen ?? (org.data && count(org.data) > PHONE_CHART_AGENTS && window.matchMedia('(max-width: 760px)').matches ? 'list' : 'chart')
  return (
    <>
      <div className="page-head">
        <h1>Org chart</h1>
        <div className="actions">
          <div role="group" aria-label="View" className="actions" style={{ gap: 0 }}>
            <button className={view === 'chart' ? 'primary' : ''} aria-pressed={view === 'chart'} onClick={() => setView('chart')}>Chart</button>
            <button className={view === 'list' ? 'primary' : ''} aria-pressed={view === 'list'} onClick={() => setView('list')}>List</button>
          </div>
          <Link to="/c/$companyId/agents" params={{ companyId }}>All agents</Link>
        </div>
      </div>
      <ErrorText error={org.error} retry={() => void org.refetch()} />
      {org.data?.length === 0 && <p className="empty">No agents yet.</p>}
      {org.data && org.data.length > 0 && view === 'chart' && <OrgChart companyId={companyId} org={org.data} />}
      {org.data && org.data.length > 0 && view === 'list' && (
        <div className="panel org">
          <ul aria-label="Org chart">{org.data.map((node) => <OrgBranch key={node.agent.id} node={node} companyId={companyId} />)}</ul>
        </div>
      )}
    </>
  )
}

function OrgBranch({ node, companyId }: { node: OrgNode; companyId: string }) {
  const format = useFormat()
  const { agent } = node
  return (
    <li aria-label={agent.name}>
      <Link to="/c/$companyId/agents/$agentId" params={{ companyId, agentId: agent.id }} className="org-node" style={{ color: 'inherit', textDecoration: 'none' }}>
        <AgentAvatar agent={agent} />
        <span>
          <strong>{agent.name}</strong>
          <br />
          <span className="muted small">{agent.title ?? agent.role} · {format.money(agent.spend_mtd_cents)} this month</span>
        </span>
        <Badge value={agent.status} />
      </Link>
      {node.reports.length > 0 && (
        <ul aria-label={`Reports of ${agent.name}`}>{node.reports.map((child) => <OrgBranch key={child.agent.id} node={child} companyId={companyId} />)}</ul>
      )}
    </li>
  )
}
