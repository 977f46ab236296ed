// Runs: list with filters, show with the transcript, cancel.
import type { Run, RunStatus } from '../../../client/index.ts'
import { type GroupSpec, integer, text } from '../cli.ts'
import { CliError, EXIT } from '../errors.ts'
import { details, money, plural, shortId, table, time } from '../format.ts'

function duration(run: Run): string {
  if (!run.started_at) return '-'
  const end = run.ended_at ? Date.parse(run.ended_at) : Date.now()
  const seconds = Math.max(0, Math.round((end - Date.parse(run.started_at)) / 1000))
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`
}

export const runs: GroupSpec = {
  name: 'runs',
  summary: 'Runs: list, show with transcript, diff, cancel',
  commands: [
    {
      name: 'list',
      summary: 'List runs, newest first',
      options: [
        { name: 'agent', value: 'AGENT', help: 'of this agent (id or name)' },
        { name: 'task', value: 'TASK', help: 'for this task (key or id)' },
        { name: 'status', value: 'STATUS', help: 'queued, running, succeeded, failed, cancelled' },
        { name: 'limit', value: 'N', help: 'at most N runs (1 to 500, default 100)' },
      ],
      async run(cli, { options }) {
        const companyId = await cli.companyId()
        const agent = text(options, 'agent')
        const task = text(options, 'task')
        const rows = await cli.client.runs.list(companyId, {
          agent_id: agent ? (await cli.findAgent(agent)).id : undefined,
          task_id: task ? (await cli.client.tasks.get(companyId, task)).id : undefined,
          status: text(options, 'status') as RunStatus | undefined,
          limit: integer(options, 'limit'),
        })
        await cli.print(rows, async () => {
          const names = await cli.agentNames()
          // Why queued runs wait, when no runner can take them, below the table (a column would be mostly empty).
          const waiting = rows.filter((r) => r.waiting_reason).map((r) => `${shortId(r.id)} waits: ${r.waiting_reason}`)
          return [table(rows, [
            { header: 'run', value: (r) => shortId(r.id) },
            { header: 'agent', value: (r) => names.get(r.agent_id) ?? r.agent_id },
            { header: 'task', value: (r) => r.task_key ?? null },
            { header: 'status', value: (r) => r.status },
            { header: 'trigger', value: (r) => r.trigger },
            { header: 'runner', value: (r) => r.runner_id },
            { header: 'created', value: (r) => time(r.created_at) },
            { header: 'took', value: duration, right: true },
            { header: 'cost', value: (r) => money(r.cost_cents), right: true },
          ]), ...(waiting.length ? ['', ...waiting] : [])].join('\n')
        })
      },
    },
    {
      name: 'show',
      summary: 'Show a run and its transcript',
      args: ['<run>'],
      notes: 'RUN is the run id or its first characters, as `runs list` shows them.',
      async run(cli, { args }) {
        const run = await cli.findRun(args.run!)
        await cli.print(run, async () => {
          const agent = (await cli.agentNames()).get(run.agent_id) ?? run.agent_id
          const task = run.task_id ? await cli.client.tasks.get(await cli.companyId(), run.task_id).catch(() => null) : null
          return [
            details([
              ['Id', run.id],
              ['Agent', agent],
              ['Status', run.status],
              ...(run.waiting_reason ? [['Waiting', run.waiting_reason] as [string, unknown]] : []),
              ['Trigger', run.trigger],
              ['Task', run.task_id ? (task ? `${task.key} ${task.title}` : '(deleted)') : null],
              ['Routine', run.routine_id],
              ['Runner', run.runner_id],
              ['Created', time(run.created_at)],
              ['Started', time(run.started_at)],
              ['Ended', time(run.ended_at)],
              ['Tokens', `${run.tokens_in} in, ${run.tokens_out} out`],
              ['Cost', money(run.cost_cents)],
              ['Summary', run.summary],
              ['Error', run.error],
              // The run's work (docs/verified-work.md), when its task's project has a repository.
              ...(run.changes ? [['Changes', `${run.changes.branch} (${run.changes.pushed ? 'pushed' : 'not pushed'}), ${plural(run.changes.files.length, 'file')}, +${run.changes.additions} -${run.changes.deletions}; runs diff ${shortId(run.id)}`] as [string, unknown]] : []),
              ...(run.checks.length ? [['Checks', run.checks.map((c) => `${c.name} ${c.status}`).join(', ')] as [string, unknown]] : []),
            ]),
            '',
            // A long run's answer carries its last 2,000 entries (GET /runs/{id}/transcript pages the rest).
            (run.transcript_count ?? 0) > (run.transcript?.length ?? 0)
              ? `Transcript (the last ${plural(run.transcript?.length ?? 0, 'entry')} of ${run.transcript_count})`
              : `Transcript (${plural(run.transcript?.length ?? 0, 'entry')})`,
            ...(run.transcript ?? []).map((e) => `  ${time(e.timestamp)} [${e.role}] ${e.text}`),
          ].join('\n')
        })
      },
    },
    {
      name: 'diff',
      summary: "Print a run's diff (its changes on the task's branch)",
      args: ['<run>'],
      notes: 'RUN is the run id or its first characters. The diff is printed as it is (pipe it to a pager or `git apply`); --json gives the run\'s changes and checks instead.',
      async run(cli, { args }) {
        const run = await cli.findRun(args.run!)
        if (cli.json) return cli.print({ changes: run.changes, checks: run.checks }, () => '')
        const patch = await cli.client.runs.patch(await cli.companyId(), run.id)
        if (patch === null) throw new CliError('NOT_FOUND', `Run ${shortId(run.id)} has no diff (its task's project has no repository, or the run recorded none)`, EXIT.notFound)
        cli.raw(patch)
      },
    },
    {
      name: 'cancel',
      summary: 'Cancel a queued or running run',
      args: ['<run>'],
      notes: 'RUN is the run id or its first characters, as `runs list` shows them.',
      // The agent's work so far is lost, and a running agent is stopped mid-way.
      confirm: (a) => `Cancel run ${a.run}? A running agent is stopped where it is`,
      async run(cli, { args }) {
        const run = await cli.client.runs.cancel(await cli.companyId(), (await cli.findRun(args.run!)).id)
        const agent = (await cli.agentNames()).get(run.agent_id) ?? run.agent_id
        await cli.print(run, () => `Cancelled run ${shortId(run.id)} of ${agent}`)
      },
    },
  ],
}
