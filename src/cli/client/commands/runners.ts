// Runners the server heard from in the last day: what they offer and what they run now.
import type { Runner } from '../../../client/index.ts'
import type { GroupSpec } from '../cli.ts'
import { ago, table } from '../format.ts'

function running(runner: Runner): string {
  if (runner.running_runs.length === 0) return 'idle'
  return runner.running_runs.map((r) => `${r.agent_name}${r.task_key ? ` on ${r.task_key}` : ''}`).join(', ')
}

export const runners: GroupSpec = {
  name: 'runners',
  summary: 'Runners: which are online, what they offer and run',
  commands: [
    {
      name: 'list',
      summary: 'List the runners heard from in the last 24 hours',
      notes: 'A runner is gone when it has been silent for more than two lease lengths.',
      async run(cli) {
        const rows = await cli.client.runners.list(await cli.companyId())
        await cli.print(rows, () =>
          table(rows, [
            { header: 'runner', value: (r) => r.runner_id },
            { header: 'status', value: (r) => r.status },
            { header: 'last seen', value: (r) => ago(r.last_seen_at) },
            { header: 'adapters', value: (r) => (r.adapters ? r.adapters.join(', ') : 'all (simulated)') },
            { header: 'versions', value: (r) => Object.entries(r.versions).map(([k, v]) => `${k} ${v}`).join(', ') },
            { header: 'running', value: running },
          ], '(no runner heard from in the last 24 hours)'),
        )
      },
    },
  ],
}
