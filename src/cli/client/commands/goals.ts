// Goals: list (as a tree of nested goals), create, show, update, delete.
import type { Goal, GoalStatus, GoalUpdate } from '../../../client/index.ts'
import type { OptionSpec, OptionValues } from '../args.ts'
import { type Cli, type GroupSpec, longText, nullable, text } from '../cli.ts'
import { UsageError } from '../errors.ts'
import { date, details, plural, tree, type TreeNode } from '../format.ts'

const FIELD_OPTIONS: OptionSpec[] = [
  { name: 'description', value: 'TEXT', help: 'description' },
  { name: 'status', value: 'STATUS', help: 'planned, active (default), achieved, abandoned' },
  { name: 'parent', value: 'GOAL', help: 'nest under this goal (title or id), or none' },
  { name: 'owner', value: 'AGENT', help: 'owning agent (id or name), or none' },
  { name: 'target-date', value: 'DATE', help: 'target date (YYYY-MM-DD or ISO 8601), or none' },
]

async function goalFields(cli: Cli, options: OptionValues): Promise<GoalUpdate> {
  const owner = nullable(options, 'owner')
  const target = nullable(options, 'target-date')
  return {
    description: await longText(options, 'description'),
    status: text(options, 'status') as GoalStatus | undefined,
    parent_id: await (async (parent) => (parent ? (await cli.findGoal(parent)).id : parent))(nullable(options, 'parent')),
    owner_agent_id: owner ? (await cli.findAgent(owner)).id : owner,
    target_date: target && /^\d{4}-\d{2}-\d{2}$/.test(target) ? `${target}T00:00:00Z` : target,
  }
}

function label(goal: Goal): string {
  const progress = goal.tasks_total ? ` ${goal.tasks_done ?? 0}/${plural(goal.tasks_total, 'task')}` : ''
  return `${goal.title} [${goal.status}]${progress}${goal.target_date ? ` due ${date(goal.target_date)}` : ''}`
}

/** Goals nest: roots are goals without a parent in the list. */
function goalTree(goals: Goal[]): TreeNode[] {
  const ids = new Set(goals.map((g) => g.id))
  const build = (parent: string | null): TreeNode[] =>
    goals
      .filter((g) => (parent === null ? !g.parent_id || !ids.has(g.parent_id) : g.parent_id === parent))
      .map((g) => ({ label: label(g), children: build(g.id) }))
  return build(null)
}

export const goals: GroupSpec = {
  name: 'goals',
  summary: 'Goals: list as a tree, create, show, update, delete',
  commands: [
    {
      name: 'list',
      summary: 'List goals as a tree',
      async run(cli) {
        const rows = await cli.client.goals.list(await cli.companyId())
        await cli.print(rows, () => tree(goalTree(rows)))
      },
    },
    {
      name: 'create',
      summary: 'Create a goal',
      args: ['<title...>'],
      options: FIELD_OPTIONS,
      async run(cli, { args, options }) {
        const goal = await cli.client.goals.create(await cli.companyId(), { title: args.title!, ...(await goalFields(cli, options)) })
        await cli.print(goal, () => `Created goal ${goal.title} (${goal.id})`)
      },
    },
    {
      name: 'show',
      summary: 'Show a goal',
      args: ['<goal>'],
      notes: 'GOAL is a goal title or id.',
      async run(cli, { args }) {
        const goal = await cli.findGoal(args.goal!)
        const companyId = await cli.companyId()
        const parent = goal.parent_id ? await cli.client.goals.get(companyId, goal.parent_id).catch(() => null) : null
        const owner = goal.owner_agent_id ? (await cli.agentNames()).get(goal.owner_agent_id) : null
        await cli.print(goal, () =>
          details([
            ['Title', goal.title],
            ['Id', goal.id],
            ['Status', goal.status],
            ['Tasks done', `${goal.tasks_done ?? 0} of ${goal.tasks_total ?? 0}`],
            ['Parent', parent?.title ?? goal.parent_id],
            ['Owner', owner ?? goal.owner_agent_id],
            ['Target date', date(goal.target_date)],
            ['Description', goal.description],
          ]),
        )
      },
    },
    {
      name: 'update',
      summary: 'Change fields of a goal',
      args: ['<goal>'],
      notes: 'GOAL is a goal title or id.',
      options: [{ name: 'title', value: 'TITLE', help: 'new title' }, ...FIELD_OPTIONS],
      async run(cli, { args, options }) {
        const body = { title: text(options, 'title'), ...(await goalFields(cli, options)) }
        if (Object.values(body).every((v) => v === undefined)) throw new UsageError('Nothing to change: give at least one option')
        const goal = await cli.client.goals.update(await cli.companyId(), (await cli.findGoal(args.goal!)).id, body)
        await cli.print(goal, () => `Updated goal ${goal.title}`)
      },
    },
    {
      name: 'delete',
      summary: 'Delete a goal (its sub-goals and tasks are detached)',
      args: ['<goal>'],
      notes: 'GOAL is a goal title or id.',
      confirm: (a) => `Delete goal ${a.goal}?`,
      async run(cli, { args }) {
        const goal = await cli.findGoal(args.goal!)
        await cli.client.goals.delete(await cli.companyId(), goal.id)
        await cli.print({ deleted: goal.id }, () => `Deleted goal ${goal.title}`)
      },
    },
  ],
}
