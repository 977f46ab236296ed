import type { AppContext } from '../../server/context.ts'
import type { Db, Queryable } from '../../server/db/db.ts'
import { writeHot } from '../../server/db/write.ts'
import { DORMANT_STATUSES } from '../../contract/agents.ts'
import type { Actor } from '../../server/actor.ts'
import { actorColumns } from '../audit/record.ts'
import { findInCompany } from '../companies/references.ts'
import { actingUserId } from './acting.ts'
import { NO_RUN_STATUSES, TASK_FIELDS, type Task } from './model.ts'

export interface TaskInput {
  title: string
  description?: string | null
  status?: string
  priority?: string
  assignee_agent_id?: string | null
  project_id?: string | null
  goal_id?: string | null
  parent_id?: string | null
  due_date?: string | null
  sort_order?: number
  run_id?: string | null
}

/** Checks that every entity a task points at is in the company (404 naming it otherwise). */
export async function checkTaskLinks(tx: Queryable, companyId: string, links: Pick<TaskInput, 'project_id' | 'goal_id' | 'parent_id'>) {
  if (links.project_id) await findInCompany(tx, 'projects', companyId, links.project_id, 'Project')
  if (links.goal_id) await findInCompany(tx, 'goals', companyId, links.goal_id, 'Goal')
  if (links.parent_id) await findInCompany(tx, 'tasks', companyId, links.parent_id, 'Parent task')
}

/** The audit `changes` of a task just created: [null, value] for each field it was given. */
const CREATED_CHANGES = `(SELECT coalesce(jsonb_object_agg(f.key, jsonb_build_array(NULL, f.value)), '{}'::jsonb)
   FROM jsonb_each(jsonb_build_object(${TASK_FIELDS.map((f) => `'${f}', t.${f}`).join(', ')})) f
  WHERE f.value <> 'null'::jsonb)`

/**
 * SQL condition: the assignee and every linked entity given (parameters named by number) are in
 * company $1.
 */
function linksInCompany(agent: string, project: string, goal: string, parent: string): string {
  return `($${agent}::uuid IS NULL OR EXISTS (SELECT 1 FROM agents WHERE id = $${agent} AND company_id IS NOT DISTINCT FROM $1))
       AND ($${project}::uuid IS NULL OR EXISTS (SELECT 1 FROM projects WHERE id = $${project} AND company_id IS NOT DISTINCT FROM $1))
       AND ($${goal}::uuid IS NULL OR EXISTS (SELECT 1 FROM goals WHERE id = $${goal} AND company_id IS NOT DISTINCT FROM $1))
       AND ($${parent}::uuid IS NULL OR EXISTS (SELECT 1 FROM tasks WHERE id = $${parent} AND company_id IS NOT DISTINCT FROM $1))`
}

/**
 * Takes company $1's next task number when the assignee and links ($2-$5) are in the company.
 * The due date ($6) and sort order ($7) are bound here too, so a value the database refuses (a
 * date in year 0) is refused before a number is taken. Sent outside BEGIN/COMMIT, the statement
 * is a transaction of its own, committed without waiting for the disk (synchronous_commit off,
 * set for that transaction alone): the company row is free again as soon as the statement ends.
 */
const NUMBER_SQL = `
  WITH numbered AS (
    UPDATE companies SET last_task_number = last_task_number + 1
     WHERE id = $1 AND ${linksInCompany('2', '3', '4', '5')}
       AND num_nulls($6::timestamptz, $7::int) >= 0 -- always true: binds them
    RETURNING last_task_number AS number, task_prefix)
  SELECT number, task_prefix, set_config('synchronous_commit', 'off', true) FROM numbered`

/**
 * The create's number on PostgreSQL: the one NUMBER_SQL took ($17, the prefix $18), once the
 * links are checked again (one may have gone since).
 */
const NUMBER_TAKEN = `SELECT $17::int AS number, $18::text AS task_prefix WHERE ${linksInCompany('6', '7', '8', '9')}`

/**
 * The create's number on the embedded database, taken inside the create's statement: one
 * session runs one statement at a time there, so no create waits on another's lock, and a
 * statement of its own only cost time (20% fewer creates a second).
 */
const NUMBER_INSIDE = `
    UPDATE companies SET last_task_number = last_task_number + 1 WHERE id = $1 AND ${linksInCompany('6', '7', '8', '9')}
    RETURNING last_task_number AS number, task_prefix`

/**
 * The rest of the create as one statement, given how it gets its number (NUMBER_TAKEN or
 * NUMBER_INSIDE): inserts the task, queues its assignment run (queue_run) when the assignee is
 * available and the status is open work (the rule of queueAssignment; a task just made has no
 * identical queued run, so none of queueRun's reuse is needed), and writes both audit events
 * (record_audit_events: task created; run queued, 1 µs later). Nothing is written when a link
 * check fails.
 */
const createSql = (number: string) => `
  WITH assignee AS (
    SELECT id, name, status FROM agents WHERE id = $6 AND company_id IS NOT DISTINCT FROM $1
  ), numbered AS (${number}
  ), t AS (
    INSERT INTO tasks (company_id, number, title, description, status, priority, assignee_agent_id, project_id, goal_id,
                       parent_id, due_date, sort_order, created_by_agent_id, created_by_user_id, started_at, completed_at)
    SELECT $1, numbered.number, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,
           CASE WHEN $4 = 'in_progress' THEN now() END,
           CASE WHEN $4 = 'done' THEN now() END
      FROM numbered
    RETURNING *
  ), wakes AS (
    SELECT assignee.id AS agent_id, t.id AS task_id FROM t, assignee
     WHERE NOT (assignee.status = ANY($14::text[])) AND NOT (t.status = ANY($15::text[]))
  ), run AS MATERIALIZED (
    SELECT q.id, q.agent_id, q.trigger FROM wakes, queue_run($1, wakes.agent_id, wakes.task_id, NULL, 'assignment', '[]') q
  ), audit AS MATERIALIZED (
    SELECT record_audit_events($1,
             jsonb_build_array($16::jsonb || jsonb_build_object(
               'verb', 'created', 'entity_type', 'task', 'entity_id', t.id,
               'label', numbered.task_prefix || '-' || t.number || ' ' || t.title, 'changes', ${CREATED_CHANGES}))
             || coalesce((SELECT jsonb_build_array($16::jsonb || jsonb_build_object(
                  'verb', 'queued', 'entity_type', 'run', 'entity_id', run.id, 'label', assignee.name || ' (' || run.trigger || ')',
                  'changes', '{"status": [null, "queued"]}'::jsonb))
                  FROM run, assignee), '[]'::jsonb)) AS written
      FROM t, numbered
  )
  -- Joining audit makes the statement write the events.
  SELECT t.id, numbered.task_prefix || '-' || t.number AS key, t.number, t.title, t.description, t.status, t.priority,
         t.assignee_agent_id, t.project_id, t.goal_id, t.parent_id, t.due_date, t.sort_order,
         t.created_by_agent_id, t.created_by_user_id, t.started_at, t.completed_at, t.created_at, t.updated_at,
         (SELECT id FROM run) AS run_id, (SELECT agent_id FROM run) AS run_agent_id
    FROM t, numbered, audit`
const CREATE_TAKEN_SQL = createSql(NUMBER_TAKEN)
const CREATE_INSIDE_SQL = createSql(NUMBER_INSIDE)

/**
 * The create's statement and its parameters: on PostgreSQL with the number taken first by a
 * statement of its own (NUMBER_SQL; null when a link check refused it), on the embedded
 * database with the number taken inside.
 */
async function createStatement(db: Db, companyId: string, input: TaskInput, params: unknown[]): Promise<{ sql: string; params: unknown[] } | null> {
  if (db.kind === 'pglite') return { sql: CREATE_INSIDE_SQL, params }
  const numbered = await db.one<{ number: number; task_prefix: string }>(NUMBER_SQL, [
    companyId, input.assignee_agent_id ?? null, input.project_id ?? null, input.goal_id ?? null, input.parent_id ?? null,
    input.due_date ?? null, input.sort_order ?? 0,
  ])
  return numbered && { sql: CREATE_TAKEN_SQL, params: [...params, numbered.number, numbered.task_prefix] }
}

/** Attempts per create: each costs one only when a linked entity appeared during the create. */
const CREATE_ATTEMPTS = 20

/**
 * Creates a task. Publishes `task.created`, and `run.created` when an assignment run was queued
 * (through writeHot: a company with webhooks gets a transaction, so their deliveries are written
 * with the task).
 *
 * On PostgreSQL the number comes first, from the company row (`last_task_number + 1` under its
 * row lock), in a statement of its own committed without waiting for the disk (NUMBER_SQL): every
 * create of the company waits for that row, which is so held only while that statement runs.
 * Held through the create's writes and their commit, as when the number was taken in the same
 * statement, it let a company make one create at a time (about 320/s from 20 connections on a
 * slow machine, 73% of busy backends waiting on it). A crash can lose the number only with the
 * create that commits after it. Numbers are never reused (SPEC.md); everything that can fail is
 * checked before one is taken, so the only gap is a create failing between the two statements (a
 * link deleted at that moment, or the database gone). The embedded database takes the number
 * inside the create's statement (NUMBER_INSIDE).
 *
 * The create is one statement sent outside BEGIN/COMMIT, so no row it locks is held across round
 * trips to this process; all or nothing still: a statement is atomic.
 */
export async function createTask(ctx: Pick<AppContext, 'db' | 'bus'>, companyId: string, actor: Actor, input: TaskInput): Promise<Task> {
  const params = [
    companyId, input.title, input.description ?? null, input.status ?? 'todo', input.priority ?? 'medium',
    input.assignee_agent_id ?? null, input.project_id ?? null, input.goal_id ?? null, input.parent_id ?? null,
    input.due_date ?? null, input.sort_order ?? 0, actor.type === 'agent' ? actor.agentId : null, actingUserId(actor),
    DORMANT_STATUSES, NO_RUN_STATUSES, JSON.stringify(actorColumns(actor)),
  ]
  for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
    const statement = await createStatement(ctx.db, companyId, input, params)
    const row = statement && await writeHot(ctx, companyId, async (tx) => {
      const created = await tx.one<Task & { run_id: string | null; run_agent_id: string | null }>(statement.sql, statement.params)
      if (created) {
        tx.publish(companyId, { type: 'task.created', id: created.id })
        if (created.run_id) tx.publish(companyId, { type: 'run.created', id: created.run_id, agent_id: created.run_agent_id })
      }
      return created
    })
    if (!row) {
      // A check failed: find which, for the 404 that names it.
      if (input.assignee_agent_id) await findInCompany(ctx.db, 'agents', companyId, input.assignee_agent_id, 'Assignee')
      await checkTaskLinks(ctx.db, companyId, input)
      continue // what was missing has appeared since: try again
    }
    const { run_id: _runId, run_agent_id: _runAgentId, ...task } = row
    return task
  }
  throw new Error('could not create the task')
}
