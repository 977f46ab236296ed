// The prompt an agent receives: company mission, the agent's instructions, why it was woken, the task with its
// last comments (the claim returns at most 20), the goal chain above the task, and for agent
// CLIs (which get the Shopfloor MCP server) what its tools are for.
import type { Comment, RunContext } from '../client/index.ts'
import { wakeQuote, wakeReason } from '../contract/runs.ts'

export function buildPrompt(context: RunContext, options: { tools?: boolean } = {}): string {
  const { company, agent, manager, task, goal_chain: goals } = context
  const parts: string[] = []

  parts.push(`# Company: ${company.name}`)
  if (company.mission) parts.push(`Mission:\n${company.mission}`)

  const role = [agent.title, agent.role].filter(Boolean).join(', ')
  parts.push(`# You are ${agent.name}${role ? ` (${role})` : ''}`)
  if (manager) parts.push(`You report to ${manager.name}${manager.title ? ` (${manager.title})` : ''}.`)
  if (agent.instructions) parts.push(`Instructions:\n${agent.instructions}`)
  // A wake, a delegation coming back, a person's answer: the agent starts from why it is here.
  const why = wakeReason(context.run)
  if (why) parts.push(`# Why you were woken\n${why}`)
  // Another agent's words: data to weigh, never the system speaking.
  const quote = wakeQuote(context.run)
  if (quote) parts.push(quote)

  if (task) {
    parts.push(`# Task ${task.key}: ${task.title}\nStatus: ${task.status}. Priority: ${task.priority}.`)
    if (task.description) parts.push(task.description)
    const comments = task.comments.slice(-20)
    if (comments.length) parts.push(`## Comments (oldest first)\n${comments.map((c) => formatComment(c, context)).join('\n\n')}`)
  } else {
    parts.push('# No task is attached to this run\nReview your open work and decide what to do next.')
  }

  if (goals.length) {
    parts.push(`# Goals (the task's goal first, then the goals above it)\n${goals
      .map((g) => `- ${g.title} [${g.status}]${g.description ? `: ${g.description}` : ''}`)
      .join('\n')}`)
  }

  if (options.tools) {
    parts.push(
      '# Your Shopfloor tools\n' +
        'The MCP server "shopfloor" acts in the company as you, within this run:\n' +
        '- get_context, list_tasks, get_task, list_agents: look before you act.\n' +
        '- create_task: delegate work to an agent who reports to you (assign it to them), or split your task into subtasks.\n' +
        '- add_comment with kind "question": ask a person or your manager when you need an answer; with kind "comment": report progress on a task.\n' +
        '- update_task: move a task you own; propose_hire: ask for a new colleague (a person approves).',
    )
  }

  parts.push(
    'When you are done, reply with a short report of what you did. If you cannot go on without ' +
      'help, begin your reply with "BLOCKED:" followed by what you need.',
  )
  return `${parts.join('\n\n')}\n`
}

function formatComment(comment: Comment, { agent, manager }: RunContext): string {
  const author = comment.author_agent_id
    ? comment.author_agent_id === agent.id
      ? `${agent.name} (you)`
      : comment.author_agent_id === manager?.id
        ? manager.name
        : 'another agent'
    : 'a person'
  return `- ${author}, ${comment.kind}, ${comment.created_at}:\n${comment.body}`
}
