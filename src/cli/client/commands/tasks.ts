// Tasks, referred to by key (ENG-12) or id: list with the API's filters, create, show with
// comments, update, move, assign, comment, delete.
import { type Comment, type Task, TASK_PRIORITIES, TASK_STATUSES, type TaskUpdate } from '../../../client/index.ts'
import type { OptionSpec, OptionValues } from '../args.ts'
import { type Cli, type GroupSpec, flag, integer, list, longText, nullable, text } from '../cli.ts'
import { UsageError } from '../errors.ts'
import { details, table, time } from '../format.ts'
import { readStdin } from '../prompt.ts'

/** The fields a task is created or updated with; `none` clears a link. */
const FIELD_OPTIONS: OptionSpec[] = [
  { name: 'description', value: 'TEXT', help: 'description ("-" reads standard input)' },
  { name: 'status', value: 'STATUS', help: TASK_STATUSES.join(', ') },
  { name: 'priority', value: 'PRIORITY', help: TASK_PRIORITIES.join(', ') },
  { name: 'assignee', value: 'AGENT', help: 'agent id or name, or none' },
  { name: 'project', value: 'PROJECT', help: 'project name or id, or none' },
  { name: 'goal', value: 'GOAL', help: 'goal title or id, or none' },
  { name: 'parent', value: 'TASK', help: 'parent task key or id, or none' },
  { name: 'due', value: 'DATE', help: 'due date (YYYY-MM-DD or ISO 8601), or none' },
]

async function taskFields(cli: Cli, options: OptionValues): Promise<TaskUpdate> {
  const companyId = await cli.companyId()
  const assignee = nullable(options, 'assignee')
  const parent = nullable(options, 'parent')
  const due = nullable(options, 'due')
  const project = nullable(options, 'project')
  const goal = nullable(options, 'goal')
  return {
    description: await longText(options, 'description'),
    status: text(options, 'status') as Task['status'] | undefined,
    priority: text(options, 'priority') as Task['priority'] | undefined,
    assignee_agent_id: assignee ? (await cli.findAgent(assignee)).id : assignee,
    project_id: project ? (await cli.findProject(project)).id : project,
    goal_id: goal ? (await cli.findGoal(goal)).id : goal,
    parent_id: parent ? (await cli.client.tasks.get(companyId, parent)).id : parent,
    due_date: due && /^\d{4}-\d{2}-\d{2}$/.test(due) ? `${due}T00:00:00Z` : due,
  }
}

async function describe(cli: Cli, task: Task, comments: Comment[]) {
  const names = await cli.agentNames()
  const agent = (id: string | null) => (id ? (names.get(id) ?? id) : null)
  const companyId = await cli.companyId()
  const [project, goal, parent] = await Promise.all([
    task.project_id ? cli.client.projects.get(companyId, task.project_id).catch(() => null) : null,
    task.goal_id ? cli.client.goals.get(companyId, task.goal_id).catch(() => null) : null,
    task.parent_id ? cli.client.tasks.get(companyId, task.parent_id).catch(() => null) : null,
  ])
  const lines = [
    `${task.key}  ${task.title}`,
    details([
      ['Id', task.id],
      ['Status', task.status],
      ['Priority', task.priority],
      ['Assignee', agent(task.assignee_agent_id)],
      ['Project', project?.name ?? task.project_id],
      ['Goal', goal?.title ?? task.goal_id],
      ['Parent', parent ? `${parent.key} ${parent.title}` : task.parent_id],
      ['Due', time(task.due_date)],
      ['Created', `${time(task.created_at)}${task.created_by_agent_id ? ` by ${agent(task.created_by_agent_id)}` : ''}`],
      ['Started', time(task.started_at)],
      ['Completed', time(task.completed_at)],
    ]),
  ]
  if (task.description) lines.push('', task.description)
  lines.push('', `Comments (${comments.length})`)
  // A comment names its author by id only (author_user_id or author_agent_id): people by the
  // members list, fetched only when a person commented. One who left the company is "former member".
  const people = comments.some((c) => c.author_user_id)
    ? new Map((await cli.client.members.list(companyId).catch(() => [])).map((m) => [m.user_id, m.name]))
    : new Map<string, string>()
  for (const c of comments) {
    const author = c.author_agent_id
      ? agent(c.author_agent_id)
      : c.author_user_id
        ? (people.get(c.author_user_id) ?? 'former member')
        : 'system'
    lines.push(`  ${time(c.created_at)} ${author}${c.kind === 'comment' ? '' : ` [${c.kind}]`}: ${c.body}`)
  }
  return lines.join('\n')
}

async function taskTable(cli: Cli, rows: Task[]): Promise<string> {
  const names = rows.some((t) => t.assignee_agent_id) ? await cli.agentNames() : new Map<string, string>()
  return table(rows, [
    { header: 'key', value: (t) => t.key },
    { header: 'status', value: (t) => t.status },
    { header: 'priority', value: (t) => t.priority },
    { header: 'assignee', value: (t) => (t.assignee_agent_id ? (names.get(t.assignee_agent_id) ?? t.assignee_agent_id) : null) },
    { header: 'title', value: (t) => t.title },
  ])
}

/** Sends an update and prints the task as it now is. */
async function update(cli: Cli, ref: string, body: TaskUpdate, done: (task: Task) => string): Promise<void> {
  const task = await cli.client.tasks.update(await cli.companyId(), ref, body)
  await cli.print(task, () => done(task))
}

export const tasks: GroupSpec = {
  name: 'tasks',
  summary: 'Tasks: list, create, show, update, move, assign, comment, delete',
  commands: [
    {
      name: 'list',
      summary: 'List tasks (board order) with the API filters',
      options: [
        { name: 'status', value: 'STATUS', help: 'only these statuses (repeatable, or comma-separated)', repeat: true },
        { name: 'assignee', value: 'AGENT', help: 'assigned to this agent (id or name)' },
        { name: 'project', value: 'PROJECT', help: 'in this project (name or id)' },
        { name: 'goal', value: 'GOAL', help: 'linked to this goal (title or id)' },
        { name: 'parent', value: 'TASK', help: 'direct subtasks of this task' },
        { name: 'search', value: 'TEXT', help: 'text in the title or description' },
        { name: 'mine', help: 'only tasks you created' },
        { name: 'limit', value: 'N', help: 'at most N tasks (1 to 1000, default 500)' },
      ],
      async run(cli, { options }) {
        const companyId = await cli.companyId()
        const assignee = text(options, 'assignee')
        const parent = text(options, 'parent')
        const rows = await cli.client.tasks.list(companyId, {
          status: list(options, 'status') as Task['status'][] | undefined,
          assignee_agent_id: assignee ? (await cli.findAgent(assignee)).id : undefined,
          project_id: text(options, 'project') ? (await cli.findProject(text(options, 'project')!)).id : undefined,
          goal_id: text(options, 'goal') ? (await cli.findGoal(text(options, 'goal')!)).id : undefined,
          parent_id: parent ? (await cli.client.tasks.get(companyId, parent)).id : undefined,
          q: text(options, 'search'),
          created_by: flag(options, 'mine') ? 'me' : undefined,
          limit: integer(options, 'limit'),
        })
        await cli.print(rows, () => taskTable(cli, rows))
      },
    },
    {
      name: 'create',
      summary: 'Create a task (assigning it to an available agent queues a run)',
      args: ['<title...>'],
      options: FIELD_OPTIONS,
      async run(cli, { args, options }) {
        const task = await cli.client.tasks.create(await cli.companyId(), { title: args.title!, ...(await taskFields(cli, options)) })
        await cli.print(task, () => `Created ${task.key}: ${task.title} [${task.status}]`)
      },
    },
    {
      name: 'show',
      summary: 'Show a task and its comments',
      args: ['<task>'],
      async run(cli, { args }) {
        const companyId = await cli.companyId()
        const [task, comments] = await Promise.all([
          cli.client.tasks.get(companyId, args.task!),
          cli.client.comments.list(companyId, args.task!),
        ])
        await cli.print({ ...task, comments }, () => describe(cli, task, comments))
      },
    },
    {
      name: 'update',
      summary: 'Change fields of a task',
      args: ['<task>'],
      options: [
        { name: 'title', value: 'TITLE', help: 'new title' },
        ...FIELD_OPTIONS,
        { name: 'sort-order', value: 'N', help: 'position on the board (integer)' },
      ],
      async run(cli, { args, options }) {
        const body = { title: text(options, 'title'), ...(await taskFields(cli, options)), sort_order: integer(options, 'sort-order') }
        if (Object.values(body).every((v) => v === undefined)) throw new UsageError('Nothing to change: give at least one option')
        await update(cli, args.task!, body, (t) => `Updated ${t.key}`)
      },
    },
    {
      name: 'move',
      summary: 'Move a task to another status',
      args: ['<task>', '<status>'],
      notes: `STATUS is one of ${TASK_STATUSES.join(', ')}.`,
      async run(cli, { args }) {
        await update(cli, args.task!, { status: args.status as Task['status'] }, (t) => `Moved ${t.key} to ${t.status}`)
      },
    },
    {
      name: 'review',
      summary: "Approve a task's work, or request changes with a comment",
      args: ['<task>'],
      options: [
        { name: 'approve', help: 'the work is done (merged when the project says so)' },
        { name: 'request-changes', value: 'COMMENT', help: 'what to change; its assignee gets a run' },
        { name: 'comment', value: 'TEXT', help: 'a comment with an approval' },
      ],
      notes: 'Only a task in_review. Give exactly one of --approve and --request-changes.',
      async run(cli, { args, options }) {
        const approve = flag(options, 'approve')
        const changes = text(options, 'request-changes')
        if (approve === (changes !== undefined)) throw new UsageError('Give exactly one of --approve and --request-changes "..."')
        const comment = approve ? text(options, 'comment') : changes
        const task = await cli.client.tasks.review(await cli.companyId(), args.task!, {
          decision: approve ? 'approve' : 'request_changes', ...(comment ? { comment } : {}),
        })
        await cli.print(task, () => (approve ? `Approved ${task.key}: ${task.status}` : `Requested changes on ${task.key}: back to ${task.status}, its assignee gets a run`))
      },
    },
    {
      name: 'assign',
      summary: 'Assign a task to an agent (or none); an available agent gets a run',
      args: ['<task>', '<agent>'],
      async run(cli, { args }) {
        const agentId = await cli.agentIdOrNone(args.agent!)
        await update(cli, args.task!, { assignee_agent_id: agentId }, (t) =>
          agentId ? `Assigned ${t.key} to ${args.agent}` : `Unassigned ${t.key}`,
        )
      },
    },
    {
      name: 'comment',
      summary: 'Add a comment to a task',
      args: ['<task>', '<body...>'],
      options: [{ name: 'kind', value: 'KIND', help: 'comment (default), question or plan' }],
      notes: 'A body of "-" is read from standard input.',
      async run(cli, { args, options }) {
        const body = args.body === '-' ? await readStdin() : args.body!
        const comment = await cli.client.comments.create(await cli.companyId(), args.task!, {
          body,
          kind: text(options, 'kind') as 'comment' | undefined,
        })
        await cli.print(comment, () => `Commented on ${args.task}`)
      },
    },
    {
      name: 'delete',
      summary: 'Delete a task and its comments (subtasks are kept, detached)',
      args: ['<task>'],
      confirm: (a) => `Delete task ${a.task} and its comments?`,
      async run(cli, { args }) {
        await cli.client.tasks.delete(await cli.companyId(), args.task!)
        await cli.print({ deleted: args.task }, () => `Deleted ${args.task}`)
      },
    },
  ],
}
