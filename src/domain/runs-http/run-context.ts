import type { Queryable } from '../../server/db/db.ts'
import { AGENT_SELECT } from '../agents/model.ts'
import { COMPANY_COLUMNS } from '../companies/model.ts'
import { PROJECT_COLUMNS } from '../projects/service.ts'
import { TASK_SELECT } from '../tasks/model.ts'
import type { Agent } from '../../contract/agents.ts'
import { documentSummary, MEMORY_PROMPT_MAX, PINNED_PROMPT_MAX, type RunMemory } from '../../contract/documents.ts'
import type { Skill } from '../../contract/skills.ts'
import { SKILL_COLUMNS } from '../skills/service.ts'
import type { Comment } from '../../contract/comments.ts'
import type { Company } from '../../contract/companies.ts'
import type { ChainGoal } from '../../contract/goals.ts'
import type { Project } from '../../contract/projects.ts'
import type { Run, RunContext } from '../../contract/runs.ts'
import type { Task } from '../../contract/tasks.ts'

/** How many of the task's comments a runner gets (the newest, oldest first), per SPEC.md. */
const CONTEXT_COMMENTS = 20

/**
 * Everything a runner needs to execute a claimed run (API-DECISIONS.md "Runner protocol"): the
 * run (as the claim returned it, with its transcript), its agent and manager, the company (with
 * the caller's role), the task with its last comments, the goal chain from the task's goal
 * upward, the project, the lease length, the documents pinned to the company or the project
 * (named, not pasted), the agent's memory and its skills.
 *
 * One statement builds every part as JSON: a claim is on the runners' hot path, and one round
 * trip costs less than the seven reads it replaces. The session runs in UTC, so timestamps in
 * JSON read exactly as the drivers return them elsewhere (src/server/db/types.ts).
 * $1 company, $2 agent, $3 task (or null), $4 the caller, $5 the run.
 */
const CONTEXT_SQL = `
  WITH RECURSIVE agent AS (${AGENT_SELECT} WHERE a.id = $2 AND a.company_id IS NOT DISTINCT FROM $1),
  task AS (${TASK_SELECT} WHERE t.id = $3 AND t.company_id IS NOT DISTINCT FROM $1),
  chain(depth, id) AS (
    SELECT 0, id FROM goals WHERE id = (SELECT goal_id FROM task) AND company_id IS NOT DISTINCT FROM $1
    UNION
    SELECT c.depth + 1, g.parent_id FROM chain c JOIN goals g ON g.id = c.id
     WHERE g.parent_id IS NOT NULL AND g.company_id = $1 AND c.depth < 100  -- UNION stops on a stored loop
  )
  SELECT
    (SELECT to_jsonb(agent) FROM agent) AS agent,
    (SELECT to_jsonb(m) FROM (${AGENT_SELECT} WHERE a.id = (SELECT reports_to_id FROM agent) AND a.company_id IS NOT DISTINCT FROM $1) m) AS manager,
    (SELECT to_jsonb(c) FROM (
       SELECT ${COMPANY_COLUMNS} FROM companies c LEFT JOIN memberships m ON m.company_id = c.id AND m.user_id = $4
        WHERE c.id = $1) c) AS company,
    (SELECT to_jsonb(task) FROM task) AS task,
    (SELECT coalesce(jsonb_agg(x ORDER BY x.created_at, x.id), '[]'::jsonb) FROM (
       SELECT id, task_id, kind, body, author_user_id, author_agent_id, run_id, created_at, updated_at
         FROM task_comments WHERE task_id = $3 AND company_id = $1
        ORDER BY created_at DESC, id DESC LIMIT ${CONTEXT_COMMENTS}) x) AS comments,
    (SELECT coalesce(jsonb_agg(x ORDER BY x.depth), '[]'::jsonb) FROM (
       SELECT chain.depth, g.id, g.title, g.description, g.status, g.parent_id, g.owner_agent_id, g.target_date, g.created_at
         FROM chain JOIN goals g ON g.id = chain.id) x) AS goal_chain,
    (SELECT to_jsonb(p) FROM (SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = (SELECT project_id FROM task) AND company_id IS NOT DISTINCT FROM $1) p) AS project,
    (SELECT coalesce(jsonb_agg(x ORDER BY x.project_id NULLS LAST, x.updated_at DESC), '[]'::jsonb) FROM (
       SELECT id, title, left(body, 2000) AS head, project_id, updated_at FROM documents
        WHERE company_id = $1 AND pinned AND agent_id IS NULL
          AND (project_id IS NULL OR project_id = (SELECT project_id FROM task))
        ORDER BY project_id NULLS LAST, updated_at DESC LIMIT ${PINNED_PROMPT_MAX}) x) AS documents,
    (SELECT to_jsonb(d) FROM (
       SELECT id, title, left(body, ${MEMORY_PROMPT_MAX}) AS body, length(body) > ${MEMORY_PROMPT_MAX} AS truncated, version, updated_at
         FROM documents WHERE agent_id = $2 AND company_id = $1) d) AS memory,
    (SELECT coalesce(jsonb_agg(to_jsonb(s) ORDER BY array_position((SELECT skills FROM agents WHERE id = $2), s.id)), '[]'::jsonb) FROM (
       SELECT ${SKILL_COLUMNS} FROM skills WHERE company_id = $1 AND id = ANY((SELECT skills FROM agents WHERE id = $2)::uuid[])) s) AS skills,
    coalesce((SELECT fresh_session FROM runs WHERE id = $5 AND company_id = $1), false) AS fresh_session`

interface ContextRow {
  agent: Agent
  manager: Agent | null
  company: Company
  task: Task | null
  comments: Comment[]
  goal_chain: Array<ChainGoal & { depth: number }>
  project: Project | null
  documents: Array<{ id: string; title: string; head: string; project_id: string | null; updated_at: string }>
  memory: RunMemory | null
  skills: Skill[]
  fresh_session: boolean
}

export async function runContext(q: Queryable, companyId: string, run: Run, userId: string, leaseSeconds: number): Promise<Omit<RunContext, 'run_token'>> {
  const row = (await q.one<ContextRow>(CONTEXT_SQL, [companyId, run.agent_id, run.task_id, userId, run.id]))!
  return {
    run,
    agent: row.agent,
    manager: row.manager,
    company: row.company,
    task: row.task ? { ...row.task, comments: row.comments } : null,
    goal_chain: row.goal_chain.map(({ depth: _, ...goal }) => goal),
    project: row.project,
    lease_seconds: leaseSeconds,
    documents: row.documents.map(({ head, updated_at: _, ...doc }) => ({ ...doc, summary: documentSummary(head) })),
    memory: row.memory,
    skills: row.skills,
    fresh_session: row.fresh_session,
  }
}
