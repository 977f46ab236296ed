// The tools `shopfloor mcp` gives an agent: its context, the company's tasks and org chart,
// and the writes its run credential allows (delegating, commenting, proposing a hire). Each tool
// is one or two calls of the typed client; what the agent may do is decided by the API, and a
// refusal comes back as a tool error carrying the API's code and message.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { ApiError, type ShopfloorClient } from '../client/index.ts'
import type * as T from '../client/types.ts'
import { TASK_PRIORITIES, TASK_STATUSES } from '../contract/task-values.ts'

/** Who the tools act for: the run behind the credential, or only a company (a person's key). */
export interface Identity {
  companyId: string
  /** Null without a run credential: tools that default to the run's task or agent then need them given. */
  context: T.RunContext | null
}

const uuid = () => z.string().uuid()
const taskRef = z.string().min(1).describe('a task key such as ENG-12, or its id')

const taskFields = {
  description: z.string().nullable().optional(),
  status: z.enum(TASK_STATUSES).optional(),
  priority: z.enum(TASK_PRIORITIES).optional(),
  assignee_agent_id: uuid().nullable().optional().describe('yourself or an agent below you in the org chart'),
  project_id: uuid().nullable().optional(),
  goal_id: uuid().nullable().optional(),
  due_date: z.string().nullable().optional().describe('ISO 8601 date-time'),
}

type Result = { content: { type: 'text'; text: string }[]; isError?: boolean }

function answer(value: unknown): Result {
  return { content: [{ type: 'text', text: JSON.stringify(value ?? null, null, 2) }] }
}

/** The API's refusal as a tool error: `CODE: message`, then the details when there are any. */
function refusal(err: ApiError): Result {
  const details = Object.keys(err.details).length ? `\n${JSON.stringify(err.details)}` : ''
  return { content: [{ type: 'text', text: `${err.code}: ${err.message}${details}` }], isError: true }
}

/** Runs a tool's calls; API refusals and unknown defaults become tool errors, anything else is thrown. */
async function attempt(fn: () => Promise<unknown>): Promise<Result> {
  try {
    return answer(await fn())
  } catch (err) {
    if (err instanceof ApiError) return refusal(err)
    if (err instanceof ToolError) return { content: [{ type: 'text', text: err.message }], isError: true }
    throw err
  }
}

class ToolError extends Error {}

function strip<V extends Record<string, unknown>>(value: V): V {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as V
}

export function registerTools(server: McpServer, client: ShopfloorClient, identity: () => Promise<Identity>): void {
  const runTask = async (): Promise<string> => {
    const task = (await identity()).context?.task
    if (!task) throw new ToolError('This run has no task: name the task')
    return task.id
  }

  server.registerTool(
    'get_context',
    {
      description: 'Your run, your agent record, your manager and direct reports, your task with its latest comments, its goal chain and project.',
      inputSchema: {},
    },
    () =>
      attempt(async () => {
        const { companyId, context } = await identity()
        if (!context) throw new ToolError('No run: this server was started with a credential that is not a run credential')
        const agents = await client.agents.list(companyId)
        const reports = agents.filter((a) => a.reports_to_id === context.agent.id)
        return { ...context, reports }
      }),
  )

  server.registerTool(
    'list_tasks',
    {
      description: "The company's tasks, filtered as the API's task list is.",
      inputSchema: {
        status: z.array(z.enum(TASK_STATUSES)).optional(),
        assignee_agent_id: uuid().optional(),
        project_id: uuid().optional(),
        goal_id: uuid().optional(),
        parent_id: uuid().optional(),
        q: z.string().optional().describe('words in the title or description'),
        limit: z.number().int().min(1).max(1000).optional(),
      },
    },
    (filters) => attempt(async () => client.tasks.list((await identity()).companyId, strip(filters) as T.TaskFilters)),
  )

  server.registerTool(
    'get_task',
    { description: 'One task with its comments, oldest first.', inputSchema: { task: taskRef } },
    ({ task }) =>
      attempt(async () => {
        const { companyId } = await identity()
        const found = await client.tasks.get(companyId, task)
        return { ...found, comments: await client.comments.list(companyId, found.id) }
      }),
  )

  server.registerTool(
    'create_task',
    {
      description:
        'Creates a task, by default a subtask of your run’s task. Assign it to yourself or to an agent below you to delegate; its assignee is woken for it, and you are woken on the parent once all the subtasks you handed out are done or cancelled.',
      inputSchema: {
        title: z.string().min(1).max(200),
        ...taskFields,
        parent_id: uuid().nullable().optional().describe("defaults to your run's task; null for a top-level task"),
      },
    },
    (input) =>
      attempt(async () => {
        const { companyId, context } = await identity()
        const parent = input.parent_id === undefined ? (context?.task?.id ?? null) : input.parent_id
        return client.tasks.create(companyId, strip({ ...input, parent_id: parent }) as T.TaskCreate)
      }),
  )

  server.registerTool(
    'update_task',
    {
      description: 'Changes a task you are assigned to or created (status, priority, assignee...).',
      inputSchema: { task: taskRef.optional().describe("defaults to your run's task"), title: z.string().min(1).max(200).optional(), ...taskFields },
    },
    ({ task, ...patch }) =>
      attempt(async () => client.tasks.update((await identity()).companyId, task ?? (await runTask()), strip(patch) as T.TaskUpdate)),
  )

  server.registerTool(
    'add_comment',
    {
      description:
        'Comments on a task (by default your run’s task): `comment` to report, `question` to ask a person (then set the task to blocked; their answer wakes you), `plan` to lay out the steps.',
      inputSchema: {
        body: z.string().min(1),
        kind: z.enum(['comment', 'question', 'plan']).optional(),
        task: taskRef.optional().describe("defaults to your run's task"),
      },
    },
    ({ body, kind, task }) =>
      attempt(async () => client.comments.create((await identity()).companyId, task ?? (await runTask()), strip({ body, kind }))),
  )

  server.registerTool(
    'list_agents',
    { description: "The company's org chart: each agent with the agents reporting to it.", inputSchema: {} },
    () => attempt(async () => client.agents.org((await identity()).companyId)),
  )

  server.registerTool(
    'propose_hire',
    {
      description: 'Proposes hiring an agent (by default reporting to you). A person decides: the agent waits as pending_approval until then.',
      inputSchema: {
        name: z.string().min(1).max(100),
        title: z.string().max(120).nullable().optional(),
        role: z.string().max(50).nullable().optional(),
        adapter: z.string().max(50).nullable().optional(),
        reports_to_id: uuid().nullable().optional().describe('defaults to you'),
        instructions: z.string().nullable().optional(),
        capabilities: z.array(z.string()).nullable().optional(),
      },
    },
    (input) =>
      attempt(async () => {
        const { companyId, context } = await identity()
        const manager = input.reports_to_id === undefined ? (context?.agent.id ?? null) : input.reports_to_id
        return client.agents.hire(companyId, strip({ ...input, reports_to_id: manager, request_approval: true }) as T.AgentHire)
      }),
  )
}
