import type { Tx } from '../../server/db/write.ts'
import { isDormant } from '../../contract/agents.ts'
import type { Actor } from '../../server/actor.ts'
import { queueRun, quotedEntryText } from '../runs/queue.ts'
import { type Task, taskLabel } from './model.ts'

// Delegation closes its loops, for work that agents handed out only (what people arrange is
// left alone):
// - the last open subtask an agent created (through its run) reaching done or cancelled wakes
//   the parent's assignee for the parent, saying which subtasks finished;
// - a person's comment on a task that an agent's run moved to `blocked` wakes the task's
//   assignee for it: the answer to its question.
// An agent is never woken by its own change; dormant agents are not woken. The wake is an
// `assignment` run (work came back to the agent; `manual` is a wake someone asked for), queued
// by queueRun: audited with the actor who caused it, published, and an identical queued run is
// reused.

const CLOSED = ['done', 'cancelled']
/** How much of the answer goes into the wake's first transcript entry. */
const ANSWER_CHARS = 500

interface Sleeper {
  id: string
  name: string
  status: string
}

function wokenByItself(actor: Actor, agentId: string): boolean {
  return actor.type === 'agent' && actor.agentId === agentId
}

/** After a status change of `task`: wakes the parent's assignee once its agents' subtasks are all closed. */
export async function wakeOnSubtasksClosed(tx: Tx, companyId: string, task: Task, actor: Actor): Promise<void> {
  if (!CLOSED.includes(task.status) || !task.parent_id || !task.created_by_agent_id) return
  // The parent's row lock orders subtasks closing at the same moment: the last to commit sees
  // the others closed, so exactly one of them wakes the parent's assignee.
  const parent = await tx.one<{ id: string; key: string; title: string; assignee: Sleeper | null }>(
    `SELECT p.id, c.task_prefix || '-' || p.number AS key, p.title,
            (SELECT to_jsonb(a) FROM (SELECT id, name, status FROM agents WHERE id = p.assignee_agent_id) a) AS assignee
       FROM tasks p JOIN companies c ON c.id = p.company_id
      WHERE p.id = $1 AND p.company_id IS NOT DISTINCT FROM $2
        FOR NO KEY UPDATE OF p`,
    [task.parent_id, companyId],
  )
  const assignee = parent?.assignee
  if (!parent || !assignee || isDormant(assignee.status) || wokenByItself(actor, assignee.id)) return
  const subtasks = await tx.many<{ key: string; title: string; status: string }>(
    `SELECT c.task_prefix || '-' || s.number AS key, s.title, s.status
       FROM tasks s JOIN companies c ON c.id = s.company_id
      WHERE s.parent_id = $1 AND s.company_id IS NOT DISTINCT FROM $2 AND s.created_by_agent_id IS NOT NULL
      ORDER BY s.number`,
    [parent.id, companyId],
  )
  if (subtasks.some((s) => !CLOSED.includes(s.status))) return
  // The keys and statuses are ours; the titles are the agents' words, quoted.
  const finished = subtasks.map((s) => `${s.key} (${s.status})`).join('; ')
  await queueRun(tx, {
    companyId,
    agentId: assignee.id,
    agentName: assignee.name,
    taskId: parent.id,
    trigger: 'assignment',
    reason: `The subtasks of ${parent.key} are finished: ${finished}`,
    quoted: quotedEntryText('the agents who made them', subtasks.map((s) => taskLabel(s)).join('\n')),
    actor,
  })
}

/** After a comment on `task`: a person's answer to an agent that blocked the task wakes its assignee. */
export async function wakeOnAnswer(tx: Tx, companyId: string, task: Task, actor: Actor, body: string): Promise<void> {
  if (actor.type !== 'user' || task.status !== 'blocked' || !task.assignee_agent_id) return
  const assignee = await tx.one<Sleeper>(
    `SELECT a.id, a.name, a.status FROM tasks t JOIN agents a ON a.id = t.assignee_agent_id
      WHERE t.id = $1 AND t.company_id IS NOT DISTINCT FROM $2 AND t.blocked_by_run_id IS NOT NULL`,
    [task.id, companyId],
  )
  if (!assignee || isDormant(assignee.status)) return
  const answer = body.length > ANSWER_CHARS ? `${body.slice(0, ANSWER_CHARS)}…` : body
  await queueRun(tx, {
    companyId,
    agentId: assignee.id,
    agentName: assignee.name,
    taskId: task.id,
    trigger: 'assignment',
    reason: `${actor.name} answered on ${task.key}: ${answer}`,
    actor,
  })
}
