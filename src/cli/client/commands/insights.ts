// Read-only views of a company: the activity log, the dashboard, monthly costs and the inbox.
import type { AuditEvent } from '../../../client/index.ts'
import { type CommandSpec, integer, text } from '../cli.ts'
import { budget, details, money, plural, shortId, table, time } from '../format.ts'

/** `status: todo → done, title: … → …` from an audit event's field-level changes. */
function changes(event: AuditEvent): string {
  const show = (v: unknown) => (v === null || v === undefined ? '∅' : typeof v === 'string' ? v : JSON.stringify(v))
  return Object.entries(event.changes ?? {})
    .map(([field, [before, after]]) => `${field}: ${show(before)} → ${show(after)}`)
    .join(', ')
}

export const activity: CommandSpec = {
  name: 'activity',
  summary: 'The audit trail, newest first',
  options: [
    { name: 'limit', value: 'N', help: 'at most N entries (1 to 200, default 50)' },
    { name: 'before', value: 'WHEN', help: 'entries older than this: a date (YYYY-MM-DD, UTC) or a timestamp such as a created_at (paging)' },
  ],
  async run(cli, { options }) {
    // The API takes a full timestamp only (ISO 8601, UTC without an offset); a date means its
    // start, so "before 2026-11-20" is everything up to the end of the 19th.
    const before = text(options, 'before')
    const rows = await cli.client.insights.activity(await cli.companyId(), {
      limit: integer(options, 'limit'),
      before: before && /^\d{4}-\d{2}-\d{2}$/.test(before) ? `${before}T00:00:00Z` : before,
    })
    await cli.print(rows, () =>
      table(rows, [
        { header: 'when', value: (e) => time(e.created_at) },
        { header: 'actor', value: (e) => e.actor_name },
        { header: 'verb', value: (e) => e.verb },
        { header: 'entity', value: (e) => e.entity_type },
        { header: 'label', value: (e) => e.label },
        { header: 'changes', value: changes },
      ]),
    )
  },
}

export const dashboard: CommandSpec = {
  name: 'dashboard',
  summary: 'Agents, tasks, approvals and spend at a glance',
  options: [{ name: 'days', value: 'DAYS', help: 'range of the daily series: 7, 14 (default) or 30' }],
  async run(cli, { options }) {
    // Any other number goes to the API, which answers it with VALIDATION_ERROR.
    const days = integer(options, 'days') as 7 | 14 | 30 | undefined
    const d = await cli.client.insights.dashboard(await cli.companyId(), { days })
    await cli.print(d, async () => {
      const byStatus = Object.entries(d.tasks_by_status).map(([s, n]) => `${s} ${n}`).join(', ')
      const lines = [
        details([
          ['Agents', `${d.agents_total} (${d.agents_running} running, ${d.agents_paused} paused)`],
          ['Tasks', byStatus || 'none'],
          ['Blocked / in progress', `${d.tasks_blocked} / ${d.tasks_in_progress}`],
          ['Pending approvals', d.pending_approvals],
          ['Spend this month', `${money(d.spend_mtd_cents)} of ${budget(d.monthly_budget_cents)}`],
        ]),
        '',
        `Last ${d.range_days} days`,
        table(d.series, [
          { header: 'date', value: (s) => s.date },
          { header: 'created', value: (s) => s.tasks_created, right: true },
          { header: 'completed', value: (s) => s.tasks_completed, right: true },
          { header: 'runs ok', value: (s) => s.runs_succeeded, right: true },
          { header: 'failed', value: (s) => s.runs_failed, right: true },
          { header: 'cost', value: (s) => money(s.cost_cents), right: true },
        ]),
      ]
      if (d.active_runs.length) {
        const names = await cli.agentNames()
        const name = (r: (typeof d.active_runs)[number]) => `${names.get(r.agent_id) ?? r.agent_id}${r.task_key ? ` on ${r.task_key}` : ''}`
        lines.push('', `Active runs: ${d.active_runs.map((r) => `${name(r)} (${r.status}${r.runner_id ? ` on ${r.runner_id}` : ''})`).join(', ')}`)
      }
      if (d.for_you) lines.push('', `For you: ${plural(d.for_you.open_tasks, 'open task')} you created, ${d.for_you.blocked_tasks} blocked`)
      return lines.join('\n')
    })
  },
}

export const costs: CommandSpec = {
  name: 'costs',
  summary: 'Spend of a month by agent, project and day',
  options: [{ name: 'month', value: 'YYYY-MM', help: 'the month (default: the current UTC month)' }],
  async run(cli, { options }) {
    const c = await cli.client.insights.costs(await cli.companyId(), { month: text(options, 'month') })
    await cli.print(c, () =>
      [
        `${c.month}: ${money(c.total_cents)} of ${budget(c.budget_cents)}`,
        '',
        'By agent',
        table(c.by_agent, [
          { header: 'agent', value: (a) => a.name },
          { header: 'runs', value: (a) => a.runs, right: true },
          { header: 'tokens in', value: (a) => a.tokens_in, right: true },
          { header: 'tokens out', value: (a) => a.tokens_out, right: true },
          { header: 'cost', value: (a) => money(a.cost_cents), right: true },
        ]),
        '',
        'By project',
        table(c.by_project, [
          { header: 'project', value: (p) => p.name },
          { header: 'cost', value: (p) => money(p.cost_cents), right: true },
        ]),
        '',
        // The API lists every day of the month; the days without spend are left out here.
        'By day',
        table(c.by_day.filter((d) => d.cost_cents !== 0), [
          { header: 'date', value: (d) => d.date },
          { header: 'cost', value: (d) => money(d.cost_cents), right: true },
        ]),
      ].join('\n'),
    )
  },
}

export const inbox: CommandSpec = {
  name: 'inbox',
  summary: 'What waits for a person: pending approvals, blocked and in-review tasks, failed runs',
  async run(cli) {
    const box = await cli.client.insights.inbox(await cli.companyId())
    await cli.print(box, async () => {
      const names = await cli.agentNames()
      const agent = (id: string | null) => (id ? (names.get(id) ?? id) : null)
      return [
        `Approvals pending (${box.approvals.length})`,
        table(box.approvals, [
          { header: 'approval', value: (a) => shortId(a.id) },
          { header: 'type', value: (a) => a.type },
          { header: 'agent', value: (a) => agent(a.agent_id) },
          { header: 'created', value: (a) => time(a.created_at) },
        ]),
        '',
        `Tasks blocked or in review (${box.tasks.length})`,
        table(box.tasks, [
          { header: 'key', value: (t) => t.key },
          { header: 'status', value: (t) => t.status },
          { header: 'assignee', value: (t) => agent(t.assignee_agent_id) },
          { header: 'title', value: (t) => t.title },
        ]),
        '',
        `Runs failed in the last 7 days (${box.failed_runs.length})`,
        table(box.failed_runs, [
          { header: 'run', value: (r) => shortId(r.id) },
          { header: 'agent', value: (r) => agent(r.agent_id) },
          { header: 'task', value: (r) => r.task_key ?? null },
          { header: 'ended', value: (r) => time(r.ended_at) },
          { header: 'error', value: (r) => r.error },
        ]),
      ].join('\n')
    })
  },
}
