import type { Queryable } from '../../server/db/db.ts'
import { AGENT_SELECT } from '../agents/model.ts'
import { COMPANY_COLUMNS } from '../companies/model.ts'
import { getProject } from '../projects/service.ts'
import { TASK_SELECT } from '../tasks/model.ts'
import type { Run } from './model.ts'

/** How many of the task's comments a runner gets (the newest, oldest first), per SPEC.md. */
const CONTEXT_COMMENTS = 20

/**
 * Everything a runner needs to execute a claimed run (API-DECISIONS.md "Runner protocol"): the
 * run (as the claim returned it, with its transcript), its agent and manager, the company (with
 * the caller's role), the task with its last comments, the goal chain from the task's goal
 * upward, the project and the lease length. Read in two rounds of parallel queries.
 */
export async function runContext(q: Queryable, companyId: string, run: Run, userId: string, leaseSeconds: number) {
  const [agent, company, task] = await Promise.all([
    q.one(`${AGENT_SELECT} WHERE a.id = $1 AND a.company_id = $2`, [run.agent_id, companyId]),
    q.one(
      `SELECT ${COMPANY_COLUMNS} FROM companies c
         LEFT JOIN memberships m ON m.company_id = c.id AND m.user_id = $2
        WHERE c.id = $1`,
      [companyId, userId],
    ),
    run.task_id ? q.one(`${TASK_SELECT} WHERE t.id = $1 AND t.company_id = $2`, [run.task_id, companyId]) : null,
  ])
  const [manager, comments, goalChain, project] = await Promise.all([
    agent?.reports_to_id ? q.one(`${AGENT_SELECT} WHERE a.id = $1 AND a.company_id = $2`, [agent.reports_to_id, companyId]) : null,
    task
      ? q.many(
          `SELECT * FROM (
             SELECT id, task_id, kind, body, author_user_id, author_agent_id, run_id, created_at, updated_at
               FROM task_comments WHERE task_id = $1 AND company_id = $2
              ORDER BY created_at DESC, id DESC LIMIT ${CONTEXT_COMMENTS}
           ) newest ORDER BY created_at, id`,
          [task.id, companyId],
        )
      : [],
    task?.goal_id ? goalChainOf(q, companyId, task.goal_id) : [],
    task?.project_id ? getProject(q, companyId, task.project_id) : null,
  ])
  return {
    run,
    agent,
    manager,
    company,
    task: task ? { ...task, comments } : null,
    goal_chain: goalChain,
    project,
    lease_seconds: leaseSeconds,
  }
}

/** The goal and its ancestors, from the goal upward; UNION stops on a stored loop. */
function goalChainOf(q: Queryable, companyId: string, goalId: string) {
  return q.many(
    `WITH RECURSIVE chain(depth, id) AS (
       SELECT 0, id FROM goals WHERE id = $1 AND company_id = $2
       UNION
       SELECT c.depth + 1, g.parent_id FROM chain c JOIN goals g ON g.id = c.id
        WHERE g.parent_id IS NOT NULL AND g.company_id = $2 AND c.depth < 100
     )
     SELECT g.id, g.title, g.description, g.status, g.parent_id, g.owner_agent_id, g.target_date, g.created_at
       FROM chain JOIN goals g ON g.id = chain.id
      ORDER BY chain.depth`,
    [goalId, companyId],
  )
}
