import { useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { Agent, TaskStatus } from '#src/client/types.ts'
import { AgentAvatar } from '../components/AgentAvatar.tsx'
import { AgentActions } from '../components/agents/AgentActions.tsx'
import { AgentFormFields, useAgentForm } from '../components/agents/AgentForm.tsx'
import { AgentMemory, AgentSkills } from '../components/agents/AgentKnowledge.tsx'
import { AgentSettings } from '../components/agents/AgentSettings.tsx'
import { CurrentRun, currentRun } from '../components/agents/AgentWork.tsx'
import { BudgetMeter } from '../components/agents/BudgetMeter.tsx'
import { PausedReason } from '../components/agents/PausedReason.tsx'
import { FavoriteButton } from '../components/agents/FavoriteButton.tsx'
import { Badge } from '../components/Badge.tsx'
import { ErrorText } from '../components/ErrorText.tsx'
import { RunTable } from '../components/RunTable.tsx'
import { TaskTable } from '../components/tasks/TaskTable.tsx'
import { api } from '../lib/api.ts'
import { useCompanyId } from '../lib/company.ts'
import { useFormat } from '../lib/preferences.tsx'
import { thisMonth } from '../lib/spend.ts'
import { keys, useAgent, useAgents, useCosts, useRuns, useTasks } from '../lib/queries.ts'
import { Link, useParams } from '@tanstack/react-router'
import { adapterLabel } from '../lib/adapters.ts'
import { useSubmit } from '../lib/useForm.ts'

// The agent at work: why it is paused (if it is), spend against budget with the month-end
// forecast, manager and reports, the current run live, recent runs, open tasks, and settings.

export function AgentPage() {
  const { agentId } = useParams({ from: '/signed-in/c/$companyId/agents/$agentId' })
  const companyId = useCompanyId()
  const agent = useAgent(companyId, agentId)
  // A failed refetch keeps showing the agent (and an open edit form) rather than the error.
  if (agent.error && !agent.data) return <ErrorText error={agent.error} retry={() => void agent.refetch()} back={<Link to="/c/$companyId/agents" params={{ companyId }}>Back to the agents</Link>} />
  if (!agent.data) return <p className="muted">Loading…</p>
  return <AgentDetail companyId={companyId} agent={agent.data} />
}

const OPEN_STATUSES: TaskStatus[] = ['backlog', 'todo', 'in_progress', 'in_review', 'blocked']
/** Open tasks listed here; a busy agent's others are a link away, on the tasks page. */
const OPEN_TASKS_SHOWN = 50

function AgentDetail({ companyId, agent }: { companyId: string; agent: Agent }) {
  const format = useFormat()
  const agents = useAgents(companyId, true)
  const runs = useRuns(companyId, { agent_id: agent.id, limit: 20 })
  const tasks = useTasks(companyId, { assignee_agent_id: agent.id, status: OPEN_STATUSES, limit: OPEN_TASKS_SHOWN })
  const costs = useCosts(companyId, thisMonth())
  const [editing, setEditing] = useState(false)
  const manager = agents.data?.find((a) => a.id === agent.reports_to_id)
  const reports = (agents.data ?? []).filter((a) => a.reports_to_id === agent.id && a.status !== 'terminated')
  const agentMap = new Map((agents.data ?? []).map((a) => [a.id, a]))
  // Agents with neither spend nor a budget are not in the forecast: they project nothing.
  const forecast = costs.data ? (costs.data.forecast.by_agent.find((row) => row.agent_id === agent.id) ?? null) : undefined
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
      <PausedReason companyId={companyId} agent={agent} />
      <div className="cards">
        <section className="card" aria-label="Budget"><div className="label">Budget</div><BudgetMeter spent={agent.spend_mtd_cents ?? 0} budget={agent.monthly_budget_cents} forecast={forecast} /></section>
        <section className="card"><div className="label">Open tasks</div><div className="value">{agent.open_tasks ?? 0}</div><div className="muted small">Last activity {format.relative(agent.last_activity)}</div></section>
        <section className="card" aria-label="Team">
          <div className="label">Reports to</div>
          <div>{manager ? <Link to="/c/$companyId/agents/$agentId" params={{ companyId, agentId: manager.id }}>{manager.name}</Link> : 'Nobody'}</div>
          <div className="label" style={{ marginTop: 8 }}>Direct reports</div>
          {reports.length === 0 ? <div className="muted">None</div> : (
            <ul className="plain" aria-label="Direct reports">
              {reports.map((report) => (
                <li key={report.id}>
                  <Link to="/c/$companyId/agents/$agentId" params={{ companyId, agentId: report.id }}>{report.name}</Link>
                  {report.title && <span className="muted small"> {report.title}</span>} <Badge value={report.status} />
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
      <section className="panel" aria-label="Current run">
        <h2>Now</h2>
        <ErrorText error={runs.error} retry={() => void runs.refetch()} />
        {runs.data && <CurrentRun companyId={companyId} run={currentRun(runs.data)} />}
      </section>
      <section className="panel" aria-label="Recent runs">
        <h2>Recent runs</h2>
        <ErrorText error={runs.error} retry={() => void runs.refetch()} />
        {runs.data && <RunTable companyId={companyId} runs={runs.data} />}
      </section>
      <section className="panel" aria-label="Open tasks">
        <h2>Open tasks</h2>
        <ErrorText error={tasks.error} retry={() => void tasks.refetch()} />
        {tasks.data && agent.open_tasks > tasks.data.length && (
          <p className="muted small">
            The first {tasks.data.length} of {format.number(agent.open_tasks)}:{' '}
            <Link to="/c/$companyId/tasks" params={{ companyId }} search={{ assignee_agent_id: agent.id, status: OPEN_STATUSES.join(',') }}>all on the tasks page</Link>
          </p>
        )}
        {tasks.data && <TaskTable companyId={companyId} tasks={tasks.data} agents={agentMap} />}
      </section>
      <AgentSkills companyId={companyId} agent={agent} />
      <AgentMemory companyId={companyId} agent={agent} />
      <section className="panel" aria-label="Settings">
        <div className="page-head" style={{ marginBottom: 8 }}>
          <h2 style={{ margin: 0 }}>Settings</h2>
          {agent.status !== 'terminated' && <button onClick={() => setEditing((e) => !e)}>{editing ? 'Cancel' : 'Edit'}</button>}
        </div>
        {editing ? <EditAgent companyId={companyId} agent={agent} onDone={() => setEditing(false)} /> : <AgentSettings agent={agent} />}
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
