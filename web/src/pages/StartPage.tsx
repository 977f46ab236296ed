// The guided start after creating a company: while it is still empty it may give way to one made
// from a template; hire the first agent (its CLI picked by product name), connect a runner (an API
// key made on request, the exact command with a copy button, and a live wait until the runner
// shows up, naming the CLIs it found), then give the agent a task. Every step can be skipped; the
// dashboard shows what is left.
import { useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate } from '@tanstack/react-router'
import { type ReactNode, useState } from 'react'
import type { Agent, Task } from '#src/client/types.ts'
import { CopyField } from '../components/CopyField.tsx'
import { ErrorText } from '../components/ErrorText.tsx'
import { TemplatePicker } from '../components/company/TemplatePicker.tsx'
import { Field } from '../components/form.tsx'
import { ADAPTER_NAMES, adapterLabel } from '../lib/adapters.ts'
import { api } from '../lib/api.ts'
import { useCompanyId } from '../lib/company.ts'
import { keys, useAgents, useCompany, useRunners, useRuns, useTasks } from '../lib/queries.ts'
import { HIRE_DEFAULTS } from '../lib/spend.ts'
import { FIRST_TASK, useStartProgress } from '../lib/start.ts'
import { useForm, useSubmit } from '../lib/useForm.ts'
import { capableRunners, waitingReason } from '../lib/waiting.ts'
import { WaitingNote } from '../components/runs/WaitingNote.tsx'

export function StartPage() {
  const companyId = useCompanyId()
  const company = useCompany(companyId)
  const progress = useStartProgress(companyId)
  const agents = useAgents(companyId)
  const firstAgent = agents.data?.[0]
  // The task step names an agent with open tasks (a template's engineer), else the first one.
  const worker = agents.data?.find((a) => a.open_tasks > 0) ?? firstAgent
  return (
    <>
      <div className="page-head"><h1>Get {company.data?.name ?? 'your company'} working</h1><Link to="/c/$companyId" params={{ companyId }}>Go to the dashboard</Link></div>
      <ol className="steps">
        <Step n={1} title="Name the company" done>
          <p className="muted">{company.data?.name} · task keys start with {company.data?.task_prefix}.</p>
          {agents.data?.length === 0 && <TemplateOffer />}
        </Step>
        <Step n={2} title="Hire the first agent" done={progress.done('hire')} skipped={progress.skipped('hire')} onSkip={() => progress.skip('hire')}>
          {firstAgent ? <p>{firstAgent.name} works with {adapterLabel(firstAgent.adapter)}.</p> : <HireStep companyId={companyId} />}
        </Step>
        <Step n={3} title="Connect a runner" done={progress.done('runner')} skipped={progress.skipped('runner')} onSkip={() => progress.skip('runner')}>
          <RunnerStep companyId={companyId} companyName={company.data?.name ?? ''} prefix={company.data?.task_prefix ?? ''} agent={worker} />
        </Step>
        <Step n={4} title="Give it a task" done={progress.done('task')} skipped={progress.skipped('task')} onSkip={() => progress.skip('task')}>
          {worker ? <TaskStep companyId={companyId} agent={worker} /> : <p className="muted">Hire an agent first.</p>}
        </Step>
      </ol>
    </>
  )
}

function Step({ n, title, done, skipped, onSkip, children }: { n: number; title: string; done?: boolean; skipped?: boolean; onSkip?: () => void; children: ReactNode }) {
  const state = done ? 'done' : skipped ? 'skipped' : 'todo'
  return (
    <li className={`panel step ${state}`} aria-label={title} data-state={state}>
      <div className="page-head" style={{ marginBottom: 8 }}>
        <h2 style={{ margin: 0 }}><span className="step-number">{done ? '✓' : n}</span> {title}</h2>
        {state === 'todo' && onSkip && <button className="link small" onClick={onSkip}>Skip</button>}
        {state === 'skipped' && <span className="muted small">Skipped</span>}
      </div>
      {children}
    </li>
  )
}

/** While the company is empty: a ready team instead, as a new company (this one stays as it is). */
function TemplateOffer() {
  const navigate = useNavigate()
  const [open, setOpen] = useState(false)
  if (!open) return <button className="link small" onClick={() => setOpen(true)}>Rather start from a template?</button>
  return (
    <>
      <p className="small">A template makes a new company with its team, goals and routines, and opens it here; this empty one stays in the company list.</p>
      <TemplatePicker onImported={(made) => navigate({ to: '/c/$companyId/start', params: { companyId: made.id } })} />
    </>
  )
}

function HireStep({ companyId }: { companyId: string }) {
  const client = useQueryClient()
  const form = useForm({ name: '', adapter: 'agent_cli_1' })
  const submit = useSubmit(async () => {
    await api.agents.hire(companyId, { name: form.values.name.trim(), adapter: form.values.adapter, role: 'engineer', ...HIRE_DEFAULTS })
    await client.invalidateQueries({ queryKey: keys.company(companyId, 'agents') })
  })
  return (
    <form onSubmit={submit.onSubmit}>
      <ErrorText error={submit.error} />
      <div className="form-grid">
        <Field label="Agent name"><input required maxLength={100} placeholder="Grace" {...form.bind('name')} /></Field>
        <Field label="Works with">
          <select {...form.bind('adapter')}>{ADAPTER_NAMES.map((a) => <option key={a.value} value={a.value}>{a.label}</option>)}</select>
        </Field>
      </div>
      <button className="primary" type="submit" disabled={submit.pending}>Hire</button>
    </form>
  )
}

function RunnerStep({ companyId, companyName, prefix, agent }: { companyId: string; companyName: string; prefix: string; agent: Agent | undefined }) {
  const runners = useRunners(companyId)
  const [key, setKey] = useState<string | null>(null)
  // The key acts in this company only, and its name says which (API-DECISIONS.md "Agents run confined").
  const make = useSubmit(async () => {
    const stamp = new Date().toISOString().slice(0, 16).replace('T', ' ')
    setKey((await api.apiKeys.create({ name: `${companyName.slice(0, 70)} runner ${stamp}`, company_id: companyId })).key)
  })
  const online = runners.data?.filter((r) => r.status === 'online') ?? []
  // `npx` finds the command in a clone of Shopfloor (after npm ci), where plain `shopfloor` is not on the PATH.
  const command = `SHOPFLOOR_API_KEY=${key ?? '<key>'} npx shopfloor runner --url ${window.location.origin} --company ${prefix}`
  if (online.length > 0) {
    const able = agent ? capableRunners(online, agent.adapter) : online
    return (
      <div role="status">
        {online.map((r) => (
          <p key={r.runner_id}>
            <strong className="mono">{r.runner_id}</strong> is connected
            {r.adapters === null ? ', running every agent with simulated work.'
              : Object.keys(r.versions).length > 0 ? <>, and found {Object.entries(r.versions).map(([cli, v]) => `${cli} ${v}`).join(', ')}.</>
              : ', but found no agent CLI.'}
          </p>
        ))}
        {agent && able.length === 0 && (
          <div className="waiting stuck" aria-label="Try without a CLI">
            <p className="small">{waitingReason({}, agent.adapter, online).text}</p>
            <p className="small">Or try Shopfloor first without one: stop the runner (Ctrl-C) and start it again with <code>--simulate</code>, so every agent does simulated work.</p>
            <CopyField label="Simulated runner command" value={`${command} --simulate`} />
          </div>
        )}
      </div>
    )
  }
  return (
    <>
      <p>A runner is the program that runs your agents, on your laptop or a server where their CLIs are installed. It needs an API key, which will act in {companyName || 'this company'} only.</p>
      <ErrorText error={make.error} />
      {!key ? (
        <button className="primary" onClick={() => void make.onSubmit()} disabled={make.pending}>Make an API key</button>
      ) : (
        <>
          <p className="muted small">The key is shown once. Run this in your Shopfloor folder, where the agents should work (add <code>--simulate</code> to try it without any agent CLI):</p>
          <CopyField label="Runner command" value={command} />
        </>
      )}
      <p className="muted small" aria-live="polite"><span className="live"><span className="dot" /></span> Waiting for a runner to connect…</p>
    </>
  )
}

/** The first task's run while it waits: why, and the trial that needs no terminal. */
function FirstRunWait({ companyId, taskId }: { companyId: string; taskId: string }) {
  const runs = useRuns(companyId, { task_id: taskId })
  const queued = runs.data?.find((r) => r.status === 'queued')
  return queued ? <WaitingNote companyId={companyId} run={queued} /> : null
}

function TaskStep({ companyId, agent }: { companyId: string; agent: Agent }) {
  const client = useQueryClient()
  // The agent's newest task: the company's newest may be another's, or nobody's.
  const tasks = useTasks(companyId, { ...FIRST_TASK, assignee_agent_id: agent.id })
  const [made, setMade] = useState<Task | null>(null)
  const form = useForm({ title: '' })
  const submit = useSubmit(async () => {
    const task = await api.tasks.create(companyId, { title: form.values.title.trim(), status: 'todo', assignee_agent_id: agent.id })
    setMade(task)
    await client.invalidateQueries({ queryKey: keys.company(companyId, 'tasks') })
  })
  const first = made ?? tasks.data?.[0]
  if (first) {
    return (
      <>
        <p><Link to="/c/$companyId/tasks/$taskRef" params={{ companyId, taskRef: first.key }}>{first.key} {first.title}</Link>: watch {agent.name} work on it there.</p>
        <FirstRunWait companyId={companyId} taskId={first.id} />
      </>
    )
  }
  return (
    <form onSubmit={submit.onSubmit}>
      <ErrorText error={submit.error} />
      <Field label={`A first task for ${agent.name}`}><input required maxLength={300} placeholder="Write a README for the project" {...form.bind('title')} /></Field>
      <button className="primary" type="submit" disabled={submit.pending}>Create and assign</button>
    </form>
  )
}
