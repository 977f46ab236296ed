// The MCP tools of verified work: `get_changes` (what a task's branch holds: commits, files,
// checks and the diff, for the agent that continues it and for the project's reviewer agent)
// and `review_task` (the reviewer's decision). What an agent may do is the API's to decide.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { ApiError, type ShopfloorClient } from '../client/index.ts'
import type * as T from '../client/types.ts'

/** The diff an answer carries at most: an agent reads it in its context window. */
export const DIFF_MAX_CHARS = 200_000

type Result = { content: { type: 'text'; text: string }[]; isError?: boolean }
const reply = (text: string, isError = false): Result => ({ content: [{ type: 'text', text }], ...(isError ? { isError } : {}) })

async function attempt(fn: () => Promise<string>): Promise<Result> {
  try {
    return reply(await fn())
  } catch (err) {
    if (err instanceof ApiError) return reply(`${err.code}: ${err.message}`, true)
    throw err
  }
}

const taskRef = z.string().min(1).describe('a task key such as ENG-12, or its id; defaults to your run’s task')

export function registerWorkTools(server: McpServer, client: ShopfloorClient, identity: () => Promise<{ companyId: string; context: T.RunContext | null }>): void {
  async function target(task: string | undefined) {
    const { companyId, context } = await identity()
    const ref = task ?? context?.task?.id
    if (!ref) throw new ApiError(422, 'VALIDATION_ERROR', 'This run has no task: name the task')
    return { companyId, task: await client.tasks.get(companyId, ref) }
  }

  server.registerTool(
    'get_changes',
    {
      description: "What a task's branch holds after its latest run: the branch, its commits, the files changed with +/- lines, the project's checks and their output, and the diff (up to 200,000 characters).",
      inputSchema: z.strictObject({
        task: taskRef.optional(),
        diff: z.boolean().optional().describe('include the diff (default true)'),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ task, diff }) =>
      attempt(async () => {
        const { companyId, task: found } = await target(task)
        const runs = await client.runs.list(companyId, { task_id: found.id, limit: 50 })
        const run = runs.find((r) => r.changes)
        if (!run?.changes) return `${found.key} has no recorded changes yet (its project has no repository, or no run has finished on it).`
        return describeChanges(found, run, diff === false ? null : await client.runs.patch(companyId, run.id))
      }),
  )

  server.registerTool(
    'review_task',
    {
      description: "Your review of a task in review, as the project's reviewer agent: approve (the task is done) or request_changes with a comment saying what to change (its assignee gets a run).",
      inputSchema: z.strictObject({
        task: z.string().min(1).describe('a task key such as ENG-12, or its id'),
        decision: z.enum(['approve', 'request_changes']).describe('approve: the work is done; request_changes: send it back to its assignee with your comment'),
        comment: z.string().optional().describe('required to request changes'),
      }),
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    ({ task, decision, comment }) =>
      attempt(async () => {
        const { companyId } = await identity()
        const reviewed = await client.tasks.review(companyId, task, { decision, ...(comment ? { comment } : {}) })
        return `${reviewed.key} is now ${reviewed.status}.`
      }),
  )
}

export function describeChanges(task: T.Task, run: T.Run, patch: string | null): string {
  const c = run.changes!
  const lines = [
    `${task.key}: branch ${c.branch} (${c.pushed ? 'pushed' : 'not pushed'}), ${c.base_commit.slice(0, 12)}..${c.head_commit.slice(0, 12)}, as of run ${run.id}.`,
    `${c.files.length} file(s), +${c.additions} -${c.deletions}:`,
    ...c.files.map((f) => `- ${f.path} (${f.status}, +${f.additions} -${f.deletions})`),
    `Commits, newest first:`,
    ...c.commits.map((commit) => `- ${commit.sha.slice(0, 12)} ${commit.message.split('\n')[0]}`),
  ]
  if (run.checks.length) {
    lines.push('Checks:')
    for (const check of run.checks) {
      lines.push(`- ${check.name}: ${check.status}${check.exit_code !== null ? ` (exit code ${check.exit_code})` : ''}, ${check.duration_ms} ms`)
      if (check.status !== 'passed' && check.output_tail) lines.push(`  output ends with:\n${check.output_tail.slice(-1500).replace(/^/gm, '    ')}`)
    }
  }
  if (patch !== null) {
    lines.push(patch.length > DIFF_MAX_CHARS ? `Diff (first ${DIFF_MAX_CHARS} characters of ${patch.length}):` : 'Diff:')
    lines.push(patch.slice(0, DIFF_MAX_CHARS))
  }
  return lines.join('\n')
}
