// The tools `shopfloor mcp` gives an agent: its context, the company's tasks and org chart,
// and the writes its run credential allows (delegating, commenting, proposing a hire). Each tool
// is a few calls of the typed client; what the agent may do is decided by the API, and a
// refusal comes back as a tool error carrying the API's code and message.
//
// An agent reads the answers, so they are short text in the words it works with: task keys,
// agent names, statuses (ids only where it may need one). It may name agents by name and tasks
// by key wherever an id is asked for. Arguments a tool does not know are refused rather than
// dropped: a misspelt `assignee` must not quietly make an unassigned task.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { ApiError, type ShopfloorClient } from '../client/index.ts'
import type * as T from '../client/types.ts'
import { isUuid } from '../contract/common.ts'
import { wakeReason } from '../contract/runs.ts'
import { TASK_PRIORITIES, TASK_STATUSES, TASK_TITLE_MAX } from '../contract/task-values.ts'

/** Who the tools act for: the run behind the credential, or only a company (a person's key). */
export interface Identity {
  companyId: string
  /** Null without a run credential: tools that default to the run's task or agent then need them given. */
  context: T.RunContext | null
}

const uuid = () => z.string().uuid()
const taskRef = z.string().min(1).describe('a task key such as ENG-12, or its id')
const agentRef = z.string().min(1)
const title = z.string().min(1).max(TASK_TITLE_MAX)

const taskFields = {
  description: z.string().nullable().optional(),
  status: z.enum(TASK_STATUSES).optional(),
  priority: z.enum(TASK_PRIORITIES).optional(),
  assignee_agent_id: agentRef.nullable().optional().describe('an agent’s name or id: yourself or an agent below you in the org chart; null for nobody'),
  project_id: uuid().nullable().optional(),
  goal_id: uuid().nullable().optional(),
  due_date: z.string().nullable().optional().describe('ISO 8601 date-time'),
}

type Result = { content: { type: 'text'; text: string }[]; isError?: boolean }

const reply = (text: string, isError = false): Result => ({ content: [{ type: 'text', text }], ...(isError ? { isError } : {}) })

/** The API's refusal as a tool error: `CODE: message`, then the details when there are any. */
function refusal(err: ApiError): Result {
  const details = Object.keys(err.details).length ? `\n${JSON.stringify(err.details)}` : ''
  return reply(`${err.code}: ${err.message}${details}`, true)
}

/** Runs a tool's calls; API refusals and bad references become tool errors, anything else is thrown. */
export async function attempt(fn: () => Promise<string>): Promise<Result> {
  try {
    return reply(await fn())
  } catch (err) {
    if (err instanceof ApiError) return refusal(err)
    if (err instanceof ToolError) return reply(err.message, true)
    throw err
  }
}

export class ToolError extends Error {}

function strip<V extends Record<string, unknown>>(value: V): V {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as V
}

/**
 * What one call needs to know of its company, asked at most once per call: the agents (to name
 * them and to find one by name), task keys by id, the members (to name comment authors).
 */
class Company {
  private agentList: Promise<T.Agent[]> | null = null
  private memberList: Promise<T.Member[]> | null = null
  private keys = new Map<string, string>()

  constructor(
    private client: ShopfloorClient,
    readonly id: string,
  ) {}

  agents(): Promise<T.Agent[]> {
    return (this.agentList ??= this.client.agents.list(this.id))
  }

  async agentName(id: string | null): Promise<string> {
    if (!id) return 'nobody'
    return (await this.agents()).find((a) => a.id === id)?.name ?? id
  }

  /** An agent's id from its id or its name (any case; terminated agents aside), which must name one agent. */
  async agentId(ref: string): Promise<string> {
    if (isUuid(ref)) return ref
    const name = ref.trim().toLowerCase()
    const found = (await this.agents()).filter((a) => a.status !== 'terminated' && a.name.toLowerCase() === name)
    if (found.length === 0) throw new ToolError(`No agent is named "${ref}": list_agents shows the org chart`)
    if (found.length > 1) {
      const which = await Promise.all(found.map(async (a) => `${a.id} (reporting to ${await this.agentName(a.reports_to_id)})`))
      throw new ToolError(`${found.length} agents are named "${ref}": give the id of the one you mean: ${which.join(', ')}`)
    }
    return found[0].id
  }

  /** A task's id from its key or id; an unknown one is the API's NOT_FOUND. */
  async taskId(ref: string): Promise<string> {
    return isUuid(ref) ? ref : (await this.task(ref)).id
  }

  async task(ref: string): Promise<T.Task> {
    return this.know(await this.client.tasks.get(this.id, ref))
  }

  know<V extends Pick<T.Task, 'id' | 'key'>>(task: V): V {
    this.keys.set(task.id, task.key)
    return task
  }

  async taskKey(id: string): Promise<string> {
    return this.keys.get(id) ?? (await this.task(id)).key
  }

  async authorName(comment: T.Comment): Promise<string> {
    if (comment.author_agent_id) return this.agentName(comment.author_agent_id)
    if (!comment.author_user_id) return 'Shopfloor'
    this.memberList ??= this.client.members.list(this.id)
    return (await this.memberList).find((m) => m.user_id === comment.author_user_id)?.name ?? 'a person'
  }

  /** `ENG-3 Write the copy (todo, high priority, assigned to Ada, subtask of ENG-1, due ...)`. */
  async line(task: T.Task): Promise<string> {
    const facts = [task.status, `${task.priority} priority`, `assigned to ${await this.agentName(task.assignee_agent_id)}`]
    if (task.parent_id) facts.push(`subtask of ${await this.taskKey(task.parent_id)}`)
    if (task.due_date) facts.push(`due ${task.due_date}`)
    return `${task.key} ${task.title} (${facts.join(', ')})`
  }

  async lines(tasks: T.Task[]): Promise<string[]> {
    for (const task of tasks) this.know(task)
    return Promise.all(tasks.map((task) => this.line(task)))
  }

  /** A task with its description, subtasks and comments (oldest first). */
  async detail(task: T.Task, comments: T.Comment[]): Promise<string> {
    const subtasks = await this.client.tasks.list(this.id, { parent_id: task.id })
    const creator = task.created_by_agent_id ? await this.agentName(task.created_by_agent_id) : 'a person'
    const parts = [`${await this.line(task)}\nid ${task.id}, created by ${creator}`]
    if (task.description) parts.push(`Description:\n${task.description}`)
    if (subtasks.length) parts.push(`Subtasks:\n${(await this.lines(subtasks)).map((l) => `- ${l}`).join('\n')}`)
    const said = await Promise.all(comments.map(async (c) => `- ${await this.authorName(c)} (${c.kind}, ${c.created_at}): ${c.body}`))
    parts.push(said.length ? `Comments:\n${said.join('\n')}` : 'No comments.')
    return parts.join('\n\n')
  }
}

export function registerTools(server: McpServer, client: ShopfloorClient, identity: () => Promise<Identity>): void {
  const company = async () => new Company(client, (await identity()).companyId)
  const runTask = async (): Promise<string> => {
    const task = (await identity()).context?.task
    if (!task) throw new ToolError('This run has no task: name the task')
    return task.id
  }

  server.registerTool(
    'get_context',
    {
      description: 'Your run, your agent record, your manager and direct reports, your task with its latest comments, its goal chain and project.',
      inputSchema: z.strictObject({}),
    },
    () =>
      attempt(async () => {
        if (!(await identity()).context) throw new ToolError('No run: this server was started with a credential that is not a run credential')
        // Asked again rather than the context remembered at start: comments and reports change during a run.
        const context = await client.runs.current()
        const co = await company()
        const { run, agent, task } = context
        const reports = (await co.agents()).filter((a) => a.reports_to_id === agent.id).map((a) => a.name)
        const why = wakeReason(run)
        const parts = [
          `You are ${agent.name}${agent.title ? `, ${agent.title}` : ''} (${agent.role}), agent id ${agent.id}, reporting to ${context.manager?.name ?? 'nobody'}.`,
          `Your reports: ${reports.length ? reports.join(', ') : 'none'}.`,
          `Company: ${context.company.name}${context.company.mission ? `. Mission: ${context.company.mission}` : ''}`,
          `Run ${run.id} (${run.trigger})${why ? `: ${why}` : ''}`,
        ]
        if (context.goal_chain.length) parts.push(`Goals: ${context.goal_chain.map((g) => g.title).join(' > ')}`)
        if (context.project) parts.push(`Project: ${context.project.name}`)
        parts.push(task ? `Your task: ${await co.detail(task, task.comments)}` : 'Your task: none.')
        return parts.join('\n')
      }),
  )

  server.registerTool(
    'list_tasks',
    {
      description: "The company's tasks, one a line (key, title, status, priority, assignee, parent), filtered as the API's task list is.",
      inputSchema: z.strictObject({
        status: z.array(z.enum(TASK_STATUSES)).optional(),
        assignee_agent_id: agentRef.optional().describe('an agent’s name or id'),
        project_id: uuid().optional(),
        goal_id: uuid().optional(),
        parent_id: taskRef.optional().describe('the parent task’s key or id'),
        q: z.string().optional().describe('words in the title or description'),
        limit: z.number().int().min(1).max(1000).optional(),
      }),
    },
    ({ assignee_agent_id, parent_id, ...filters }) =>
      attempt(async () => {
        const co = await company()
        const tasks = await client.tasks.list(co.id, strip({
          ...filters,
          assignee_agent_id: assignee_agent_id && (await co.agentId(assignee_agent_id)),
          parent_id: parent_id && (await co.taskId(parent_id)),
        }) as T.TaskFilters)
        return tasks.length ? (await co.lines(tasks)).join('\n') : 'No tasks match.'
      }),
  )

  server.registerTool(
    'get_task',
    { description: 'One task with its description, subtasks and comments, oldest first.', inputSchema: z.strictObject({ task: taskRef }) },
    ({ task }) =>
      attempt(async () => {
        const co = await company()
        const found = await co.task(task)
        return co.detail(found, await client.comments.list(co.id, found.id))
      }),
  )

  /** A task's writable fields with agents named by name or id and the parent by key or id, as the API takes them. */
  async function taskBody(co: Company, input: { assignee_agent_id?: string | null; parent_id?: string | null }) {
    const { assignee_agent_id: assignee, parent_id: parent } = input
    return strip({
      ...input,
      assignee_agent_id: assignee ? await co.agentId(assignee) : assignee,
      parent_id: parent ? await co.taskId(parent) : parent,
    })
  }

  server.registerTool(
    'create_task',
    {
      description:
        'Creates a task, by default a subtask of your run’s task. Assign it to yourself or to an agent below you (by name) to delegate; its assignee is woken for it, and you are woken on the parent once all the subtasks you handed out are done or cancelled.',
      inputSchema: z.strictObject({
        title,
        ...taskFields,
        parent_id: taskRef.nullable().optional().describe("the parent task's key or id; defaults to your run's task, null for a top-level task"),
      }),
    },
    (input) =>
      attempt(async () => {
        const co = await company()
        const { context } = await identity()
        const parent = input.parent_id === undefined ? (context?.task?.id ?? null) : input.parent_id
        const created = await client.tasks.create(co.id, (await taskBody(co, { ...input, parent_id: parent })) as T.TaskCreate)
        return `Created ${await co.line(created)}`
      }),
  )

  server.registerTool(
    'update_task',
    {
      description: 'Changes a task you are assigned to or created (status, priority, assignee...).',
      inputSchema: z.strictObject({ task: taskRef.optional().describe("defaults to your run's task"), title: title.optional(), ...taskFields }),
    },
    ({ task, ...patch }) =>
      attempt(async () => {
        const co = await company()
        const updated = await client.tasks.update(co.id, task ?? (await runTask()), (await taskBody(co, patch)) as T.TaskUpdate)
        return `Updated ${await co.line(updated)}`
      }),
  )

  server.registerTool(
    'add_comment',
    {
      description:
        'Comments on a task (by default your run’s task): `comment` to report, `question` to ask a person (then set the task to blocked; their answer wakes you), `plan` to lay out the steps.',
      inputSchema: z.strictObject({
        body: z.string().min(1),
        kind: z.enum(['comment', 'question', 'plan']).optional(),
        task: taskRef.optional().describe("defaults to your run's task"),
      }),
    },
    ({ body, kind, task }) =>
      attempt(async () => {
        const co = await company()
        const comment = await client.comments.create(co.id, task ?? (await runTask()), strip({ body, kind }))
        return `Added a ${comment.kind} to ${await co.taskKey(comment.task_id)} (comment id ${comment.id}).`
      }),
  )

  server.registerTool(
    'list_agents',
    { description: "The company's org chart: each agent (name, role, status, id) with the agents reporting to it indented below.", inputSchema: z.strictObject({}) },
    () =>
      attempt(async () => {
        const { companyId, context } = await identity()
        const lines: string[] = []
        const walk = (nodes: T.OrgNode[], depth: number) => {
          for (const { agent: a, reports } of nodes) {
            const you = a.id === context?.agent.id ? ' (you)' : ''
            lines.push(`${'  '.repeat(depth)}- ${a.name}${a.title ? `, ${a.title}` : ''} (${a.role}, ${a.status}), id ${a.id}${you}`)
            walk(reports, depth + 1)
          }
        }
        walk(await client.agents.org(companyId), 0)
        return lines.length ? lines.join('\n') : 'The company has no agents.'
      }),
  )

  server.registerTool(
    'propose_hire',
    {
      description: 'Proposes hiring an agent (by default reporting to you). A person decides: the agent waits as pending_approval until then.',
      inputSchema: z.strictObject({
        name: z.string().min(1).max(100),
        title: z.string().max(120).nullable().optional(),
        role: z.string().max(50).nullable().optional(),
        adapter: z.string().max(50).nullable().optional(),
        reports_to_id: agentRef.nullable().optional().describe('an agent’s name or id; defaults to you'),
        instructions: z.string().nullable().optional(),
        capabilities: z.array(z.string()).nullable().optional(),
      }),
    },
    (input) =>
      attempt(async () => {
        const co = await company()
        const { context } = await identity()
        const ref = input.reports_to_id === undefined ? (context?.agent.id ?? null) : input.reports_to_id
        const manager = ref && (await co.agentId(ref))
        const hired = await client.agents.hire(co.id, strip({ ...input, reports_to_id: manager, request_approval: true }) as T.AgentHire)
        const waits = hired.status === 'pending_approval' ? "it waits for a person's approval" : `its status is ${hired.status}`
        return `Proposed hiring ${hired.name} (${hired.role}), reporting to ${await co.agentName(hired.reports_to_id)}: ${waits} (agent id ${hired.id}).`
      }),
  )
}
