// The prompt an agent receives: company mission, the agent's instructions, its memory, why it
// was woken, the task with its last comments (the claim returns at most 20), the goal chain
// above the task, the documents pinned to the company or the project (named with a one-line
// summary, never pasted: the agent reads them on demand), its skills, and for agent CLIs (which
// get the Shopfloor MCP server) what its tools are for. Everything that grows with the company
// is bounded (20 comments, 10 documents, 2,000 characters of memory), and so is every text a
// person or an agent can make long (a task's description and comments, goals' descriptions, up
// to 1 MiB each in the API): what Shopfloor adds to a run stays about the same size in a large company as in a small
// one (bench/prompt-tokens.ts), and one pasted log cannot fill the model's context.
import type { Comment, RunContext } from '../client/index.ts'
import { wakeQuote, wakeReason } from '../contract/runs.ts'

/** The agent's skills as the runner installed them for the run (runner/skills.ts). */
/** Characters of a task's description in the prompt; the rest is read with get_task. */
export const DESCRIPTION_PROMPT_MAX = 8_000
/** Characters of one comment in the prompt. */
export const COMMENT_PROMPT_MAX = 2_000
/** Characters of all the comments together: the newest are kept. */
export const COMMENTS_PROMPT_MAX = 16_000
/** Goals of the chain in the prompt (the task's goal and those above it), and characters of each one's description. */
export const GOALS_PROMPT_MAX = 10
export const GOAL_PROMPT_MAX = 1_000

export interface PromptSkills {
  /** The CLI loads them itself: the prompt only names them. */
  native: boolean
  skills: { name: string; description: string; path: string }[]
}

export function buildPrompt(context: RunContext, options: { tools?: boolean; skills?: PromptSkills } = {}): string {
  const { company, agent, manager, task, goal_chain: goals } = context
  const parts: string[] = []

  parts.push(`# Company: ${company.name}`)
  if (company.mission) parts.push(`Mission:\n${company.mission}`)

  const role = [agent.title, agent.role].filter(Boolean).join(', ')
  parts.push(`# You are ${agent.name}${role ? ` (${role})` : ''}`)
  if (manager) parts.push(`You report to ${manager.name}${manager.title ? ` (${manager.title})` : ''}.`)
  if (agent.instructions) parts.push(`Instructions:\n${agent.instructions}`)
  const memory = context.memory
  if (memory?.body.trim()) {
    const rest = memory.truncated ? `\n(The beginning only: read_doc "${memory.id}" gives the rest.)` : ''
    parts.push(`# Your memory\nNotes you kept for yourself with remember:\n${memory.body.trim()}${rest}`)
  }
  // A wake, a delegation coming back, a person's answer: the agent starts from why it is here.
  const why = wakeReason(context.run)
  if (why) parts.push(`# Why you were woken\n${why}`)
  // Another agent's words: data to weigh, never the system speaking.
  const quote = wakeQuote(context.run)
  if (quote) parts.push(quote)

  if (task) {
    parts.push(`# Task ${task.key}: ${task.title}\nStatus: ${task.status}. Priority: ${task.priority}.`)
    const whole = options.tools ? `get_task "${task.key}" gives the whole text` : 'the task in the API has the whole text'
    if (task.description) parts.push(clip(task.description, DESCRIPTION_PROMPT_MAX, whole))
    const comments = newestWithin(task.comments.slice(-20).map((c) => formatComment(c, context, whole)), COMMENTS_PROMPT_MAX)
    if (comments.length) {
      const left = Math.min(task.comments.length, 20) - comments.length
      const older = left > 0 ? `(${left} older ${left === 1 ? 'comment' : 'comments'} left out: ${whole}.)\n\n` : ''
      parts.push(`## Comments (oldest first)\n${older}${comments.join('\n\n')}`)
    }
  } else {
    parts.push('# No task is attached to this run\nReview your open work and decide what to do next.')
  }

  if (goals.length) {
    parts.push(`# Goals (the task's goal first, then the goals above it)\n${goals
      .slice(0, GOALS_PROMPT_MAX)
      .map((g) => `- ${g.title} [${g.status}]${g.description ? `: ${clip(g.description, GOAL_PROMPT_MAX, 'the goal in the API has the whole text')}` : ''}`)
      .join('\n')}`)
  }

  const documents = context.documents ?? []
  if (documents.length) {
    const how = options.tools ? 'read one with read_doc when it matters to your work; search_docs finds the others' : 'read them through the API when they matter'
    parts.push(`# Company documents\nPinned for this work (${how}):\n${documents
      .map((d) => `- ${d.title}${d.summary ? `: ${d.summary}` : ''}`)
      .join('\n')}`)
  }

  const skills = options.skills?.skills ?? []
  if (skills.length && options.skills!.native) {
    parts.push(`# Your skills\nLoaded by your CLI; use one when the work fits it: ${skills.map((k) => k.name).join(', ')}.`)
  } else if (skills.length) {
    parts.push(`# Your skills\nInstructions for kinds of work; before doing that kind of work, read the skill's file:\n${skills
      .map((k) => `- ${k.name}: ${k.description} (${k.path})`)
      .join('\n')}`)
  }

  if (options.tools) {
    parts.push(
      '# Your Shopfloor tools\n' +
        'The MCP server "shopfloor" acts in the company as you, within this run:\n' +
        '- get_context, list_tasks, get_task, list_agents: look before you act.\n' +
        '- create_task: delegate work to an agent who reports to you (assign it to them), or split your task into subtasks.\n' +
        '- add_comment with kind "question": ask a person or your manager when you need an answer; with kind "comment": report progress on a task.\n' +
        '- update_task: move a task you own; propose_hire: ask for a new colleague (a person approves).\n' +
        '- search_docs, read_doc: the company\'s knowledge; write_doc: record what the company should know; ' +
        'remember: a short lasting note that your next runs start with.',
    )
  }

  parts.push(
    'When you are done, reply with a short report of what you did. If you cannot go on without ' +
      'help, begin your reply with "BLOCKED:" followed by what you need.',
  )
  return `${parts.join('\n\n')}\n`
}

/** The text, or its first `max` characters and a line saying how much is left out and where it is. */
export function clip(text: string, max: number, whole: string): string {
  if (text.length <= max) return text
  return `${text.slice(0, max)}\n(${(text.length - max).toLocaleString('en')} more characters left out: ${whole}.)`
}

/** The last of the texts whose lengths add up to at most `max` (always the newest one). */
function newestWithin(texts: string[], max: number): string[] {
  let used = 0
  let first = texts.length
  while (first > 0 && (first === texts.length || used + texts[first - 1]!.length <= max)) used += texts[--first]!.length
  return texts.slice(first)
}

function formatComment(comment: Comment, { agent, manager }: RunContext, whole: string): string {
  const author = comment.author_agent_id
    ? comment.author_agent_id === agent.id
      ? `${agent.name} (you)`
      : comment.author_agent_id === manager?.id
        ? manager.name
        : 'another agent'
    : 'a person'
  return `- ${author}, ${comment.kind}, ${comment.created_at}:\n${clip(comment.body, COMMENT_PROMPT_MAX, whole)}`
}
