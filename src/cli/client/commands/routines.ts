// Routines: cron-scheduled templates that create a task and queue a run when triggered.
import { type GroupSpec, flag, longText, text } from '../cli.ts'
import { UsageError } from '../errors.ts'
import { table, time } from '../format.ts'

export const routines: GroupSpec = {
  name: 'routines',
  summary: 'Routines: list, create, trigger',
  commands: [
    {
      name: 'list',
      summary: 'List routines',
      async run(cli) {
        const rows = await cli.client.routines.list(await cli.companyId())
        await cli.print(rows, async () => {
          const names = await cli.agentNames()
          return table(rows, [
            { header: 'id', value: (r) => r.id },
            { header: 'title', value: (r) => r.title },
            { header: 'cron', value: (r) => r.cron },
            { header: 'agent', value: (r) => names.get(r.agent_id) ?? r.agent_id },
            { header: 'enabled', value: (r) => (r.enabled ? 'yes' : 'no') },
            { header: 'last run', value: (r) => time(r.last_run_at) },
          ])
        })
      },
    },
    {
      name: 'create',
      summary: 'Create a routine',
      args: ['<title...>'],
      options: [
        { name: 'agent', value: 'AGENT', help: 'the agent that does it (id or name; required)' },
        { name: 'cron', value: 'CRON', help: 'schedule, 5 fields or 6 with seconds (required)' },
        { name: 'description', value: 'TEXT', help: 'description, copied into each task' },
        { name: 'project', value: 'PROJECT', help: 'project of the tasks it creates (name or id)' },
        { name: 'disabled', help: 'create it switched off' },
      ],
      async run(cli, { args, options }) {
        const agent = await cli.findAgent(required(text(options, 'agent'), 'agent'))
        const routine = await cli.client.routines.create(await cli.companyId(), {
          agent_id: agent.id,
          title: args.title!,
          cron: required(text(options, 'cron'), 'cron'),
          description: await longText(options, 'description'),
          project_id: await (async (project) => (project ? (await cli.findProject(project)).id : undefined))(text(options, 'project')),
          enabled: flag(options, 'disabled') ? false : undefined,
        })
        await cli.print(routine, () => `Created routine ${routine.title} (${routine.id}) for ${agent.name}, cron "${routine.cron}"`)
      },
    },
    {
      name: 'trigger',
      summary: 'Run a routine now: creates its task and queues a run',
      args: ['<routine-id>'],
      async run(cli, { args }) {
        const result = await cli.client.routines.trigger(await cli.companyId(), args['routine-id']!)
        await cli.print(result, () => `Triggered ${result.routine.title}: task ${result.task.key}, run ${result.run.id}`)
      },
    },
  ],
}

function required(value: string | undefined, name: string): string {
  if (value === undefined) throw new UsageError(`--${name} is required`)
  return value
}
