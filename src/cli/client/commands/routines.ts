// Routines: cron-scheduled templates that create a task and queue a run when triggered.
import type { Routine, RoutineUpdate } from '../../../client/index.ts'
import type { OptionValues } from '../args.ts'
import { type Cli, type GroupSpec, flag, longText, nullable, onOff, text } from '../cli.ts'
import { UsageError } from '../errors.ts'
import { details, nextFireText, shortId, table, time } from '../format.ts'

const ROUTINE_NOTE = 'ROUTINE is a routine title, its id or the first characters of its id, as `routines list` shows them.'

export const routines: GroupSpec = {
  name: 'routines',
  summary: 'Routines: list, create, show, update, delete, trigger',
  commands: [
    {
      name: 'list',
      summary: 'List routines',
      async run(cli) {
        const rows = await cli.client.routines.list(await cli.companyId())
        await cli.print(rows, async () => {
          const names = await cli.agentNames()
          return table(rows, [
            { header: 'routine', value: (r) => shortId(r.id) },
            { header: 'title', value: (r) => r.title },
            { header: 'cron', value: (r) => r.cron },
            { header: 'agent', value: (r) => names.get(r.agent_id) ?? r.agent_id },
            { header: 'enabled', value: (r) => (r.enabled ? 'yes' : 'no') },
            { header: 'next run', value: (r) => nextRun(r, false) },
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
        const project = text(options, 'project')
        const routine = await cli.client.routines.create(await cli.companyId(), {
          agent_id: agent.id,
          title: args.title!,
          cron: required(text(options, 'cron'), 'cron'),
          description: await longText(options, 'description'),
          project_id: project ? (await cli.findProject(project)).id : undefined,
          enabled: flag(options, 'disabled') ? false : undefined,
        })
        cli.warnUnreadableCron(routine.cron, 'the routine will not fire')
        await cli.print(routine, () => `Created routine ${routine.title} (${shortId(routine.id)}) for ${agent.name}, cron "${routine.cron}"`)
      },
    },
    {
      name: 'show',
      summary: 'Show a routine',
      args: ['<routine>'],
      notes: ROUTINE_NOTE,
      async run(cli, { args }) {
        const routine = await cli.findRoutine(args.routine!)
        await cli.print(routine, () => describe(cli, routine))
      },
    },
    {
      name: 'update',
      summary: 'Change a routine: its schedule, agent, task fields, or switch it on or off',
      args: ['<routine>'],
      notes: ROUTINE_NOTE,
      options: [
        { name: 'title', value: 'TITLE', help: 'new title (of the tasks it creates too)' },
        { name: 'cron', value: 'CRON', help: 'new schedule' },
        { name: 'agent', value: 'AGENT', help: 'the agent that does it from now on (id or name)' },
        { name: 'description', value: 'TEXT', help: 'description, or none' },
        { name: 'project', value: 'PROJECT', help: 'project name or id, or none' },
        { name: 'enabled', value: 'on|off', help: 'switch it on or off' },
      ],
      async run(cli, { args, options }) {
        const body = await routineFields(cli, options)
        if (Object.values(body).every((v) => v === undefined)) throw new UsageError('Nothing to change: give at least one option')
        const found = await cli.findRoutine(args.routine!)
        const routine = await cli.client.routines.update(await cli.companyId(), found.id, body)
        cli.warnUnreadableCron(routine.cron, 'the routine will not fire')
        await cli.print(routine, () => `Updated routine ${routine.title} (${routine.enabled ? 'on' : 'off'}, cron "${routine.cron}")`)
      },
    },
    {
      name: 'delete',
      summary: 'Delete a routine (the tasks and runs it made stay)',
      args: ['<routine>'],
      notes: ROUTINE_NOTE,
      confirm: (a) => `Delete routine ${a.routine}?`,
      async run(cli, { args }) {
        const routine = await cli.findRoutine(args.routine!)
        await cli.client.routines.delete(await cli.companyId(), routine.id)
        await cli.print({ deleted: routine.id }, () => `Deleted routine ${routine.title}`)
      },
    },
    {
      name: 'trigger',
      summary: 'Run a routine now: creates its task and queues a run',
      args: ['<routine>'],
      notes: ROUTINE_NOTE,
      async run(cli, { args }) {
        const routine = await cli.findRoutine(args.routine!)
        const result = await cli.client.routines.trigger(await cli.companyId(), routine.id)
        await cli.print(result, () => `Triggered ${result.routine.title}: task ${result.task.key}, run ${shortId(result.run.id)}`)
      },
    },
  ],
}

/** The fields an update names; agent and project given by name are looked up. */
async function routineFields(cli: Cli, options: OptionValues): Promise<RoutineUpdate> {
  const agent = text(options, 'agent')
  const project = nullable(options, 'project')
  return {
    title: text(options, 'title'),
    cron: text(options, 'cron'),
    agent_id: agent ? (await cli.findAgent(agent)).id : undefined,
    description: await longText(options, 'description'),
    project_id: project ? (await cli.findProject(project)).id : project,
    enabled: onOff(options, 'enabled'),
  }
}

async function describe(cli: Cli, routine: Routine): Promise<string> {
  const companyId = await cli.companyId()
  const project = routine.project_id ? await cli.client.projects.get(companyId, routine.project_id).catch(() => null) : null
  return details([
    ['Title', routine.title],
    ['Id', routine.id],
    ['Cron', routine.cron],
    ['Enabled', routine.enabled ? 'yes' : 'no'],
    ['Next run', nextRun(routine, true)],
    ['Agent', (await cli.agentNames()).get(routine.agent_id) ?? routine.agent_id],
    ['Project', project?.name ?? routine.project_id],
    ['Last run', time(routine.last_run_at)],
    ['Created', time(routine.created_at)],
    ['Description', routine.description],
  ])
}

/** When the scheduler fires the routine next; "-" while it is switched off. */
function nextRun(routine: Routine, why: boolean): string {
  return routine.enabled ? nextFireText(routine.cron, why) : '-'
}

function required(value: string | undefined, name: string): string {
  if (value === undefined) throw new UsageError(`--${name} is required`)
  return value
}
