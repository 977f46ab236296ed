import { useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { Agent } from '#src/client/types.ts'
import { AgentAvatar } from '../components/AgentAvatar.tsx'
import { AgentActions } from '../components/agents/AgentActions.tsx'
import { AgentFormFields, useAgentForm } from '../components/agents/AgentForm.tsx'
import { BudgetMeter } from '../components/agents/BudgetMeter.tsx'
import { FavoriteButton } from '../components/agents/FavoriteButton.tsx'
import { Badge } from '../components/Badge.tsx'
import { ErrorText } from '../components/ErrorText.tsx'
import { RunTable } from '../components/RunTable.tsx'
import { TaskTable } from '../components/tasks/TaskTable.tsx'
import { api } from '../lib/api.ts'
import { useCompanyId } from '../lib/company.ts'
import { useFormat } from '../lib/preferences.tsx'
import { keys, useAgent, useAgents, useRuns, useTasks } from '../lib/queries.ts'
import { Link, useParams } from '@tanstack/react-router'
import { adapterLabel } from '../lib/adapters.ts'
import { useSubmit } from '../lib/useForm.ts'

export function AgentPage() {
  const { agentId } = useParams({ from: '/signed-in/c/$companyId/agents/$agentId' })
  const companyId = useCompanyId()
  const agent = useAgent(companyId, agentId)
  if (agent.error) return <><p><Link to="/c/$companyId/agents" params={{ companyId }}>← Agents</Link></p><ErrorText error={agent.error} /></>
  if (!agent.data) return <p className="muted">Loading…</p>
  return <AgentDetail companyId={companyId} agent={agent.data} />
}

function AgentDetail({ companyId, agent }: { companyId: string; agent: Agent }) {
  const format = useFormat()
  const agents = useAgents(companyId, true)
  const runs = useRuns(companyId, { agent_id: agent.id, limit: 20 })
  const tasks = useTasks(companyId, { assignee_agent_id: agent.id, status: ['backlog', 'todo', 'in_progress', 'in_review', 'blocked'] })
  const [editing, setEditing] = useState(false)
  const manager = agents.data?.find((a) => a.id === agent.reports_to_id)
  const agentMap = new Map((agents.data ?? []).map((a) => [a.id, a]))
  return (
    <>
      <p><Link to="/c/$companyId/agents" params={{ companyId }}>← Agents</Link></p>
      <div className="page-head">
        <div className="row">
          <AgentAvatar agent={agent} />
          <div>
            <h1>{agent.name} <FavoriteButton agentId={agent.id} name={agent.name} /></h1>
            <div className="muted">{[agent.title, agent.role, adapterLabel(agent.adapter), agent.adapter_config?.model].filter(Boolean).join(' · ')}</div>
          </div>
          <Badge value={agent.status} />
        </div>
        <AgentActions companyId={companyId} agent={agent} />
      </div>
      <div className="cards">
        <section className="card" aria-label="Budget"><div className="label">Budget</div><BudgetMeter spent={agent.spend_mtd_cents ?? 0} budget={agent.monthly_budget_cents} /></section>
        <section className="card"><div className="label">Open tasks</div><div className="value">{agent.open_tasks ?? 0}</div></section>
        <section className="card"><div className="label">Reports to</div><div>{manager ? <Link to="/c/$companyId/agents/$agentId" params={{ companyId, agentId: manager.id }}>{manager.name}</Link> : 'Nobody'}</div><div className="muted small">Last activity {format.relative(agent.last_activity)}</div></section>
      </div>
      <section className="panel" aria-label="Settings">
        <div className="page-head" style={{ marginBottom: 8 }}>
          <h2 style={{ margin: 0 }}>Settings</h2>
          {agent.status !== 'terminated' && <button onClick={() => setEditing((e) => !e)}>{editing ? 'Cancel' : 'Edit'}</button>}
        </div>
        {editing ? <EditAgent companyId={companyId} agent={agent} onDone={() => setEditing(false)} /> : (
          <dl className="form-grid">
            <div><dt className="muted">Heartbeat</dt><dd>{agent.heartbeat_cron ?? '—'}</dd></div>
            <div><dt className="muted">Hired</dt><dd>{format.date(agent.created_at)}</dd></div>
            <div style={{ gridColumn: '1 / -1' }}><dt className="muted">Instructions</dt><dd style={{ whiteSpace: 'pre-wrap' }}>{agent.instructions ?? '—'}</dd></div>
          </dl>
        )}
      </section>
      <section className="panel" aria-label="Open tasks">
        <h2>Open tasks</h2>
        <ErrorText error={tasks.error} />
        {tasks.data && <TaskTable companyId={companyId} tasks={tasks.data} agents={agentMap} />}
      </section>
      <section className="panel" aria-label="Recent runs">
        <h2>Recent runs</h2>
        <ErrorText error={runs.error} />
        {runs.data && <RunTable companyId={companyId} runs={runs.data} />}
      </section>
    </>
  )
}

function EditAgent({ companyId, agent, onDone }: { companyId: string; agent: Agent; onDone: () => void }) {
  const client = useQueryClient()
  const { form, fields } = useAgentForm(agent)
  const submit = useSubmit(async () => {
    await api.agents.update(companyId, agent.id, fields())
    await client.invalidateQueries({ queryKey: keys.company(companyId) })
    onDone()
  })
  return (
    <form onSubmit={submit.onSubmit}>
      <ErrorText error={submit.error} />
      <AgentFormFields form={form} agentId={agent.id} />
      <button className="primary" type="submit" disabled={submit.pending}>Save</button>
    </form>
  )
}
