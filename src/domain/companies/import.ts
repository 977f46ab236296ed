import { adapterConfigProblem } from '../../contract/adapter-config.ts'
import { AgentPatchBody, DORMANT_STATUSES, HIRE_DEFAULTS } from '../../contract/agents.ts'
import { CommentPatchBody } from '../../contract/comments.ts'
import { GoalPatchBody } from '../../contract/goals.ts'
import { ProjectPatchBody } from '../../contract/projects.ts'
import { RoutinePatchBody } from '../../contract/routines.ts'
import { NO_RUN_STATUSES, TaskPatchBody } from '../../contract/tasks.ts'
import type { CompanyImport } from '../../contract/company-export.ts'
import type { Tx } from '../../server/db/write.ts'
import { invalidField } from '../../server/errors.ts'
import type { Actor } from '../../server/actor.ts'
import { diff, recordAudit } from '../audit/record.ts'
import { runQueued } from '../runs/queue.ts'
import type { Company } from './model.ts'
import { type PortableColumns, type PortableTable, portableColumns } from './portable.ts'
import { agentSkills, importDocuments, importSkills } from './import-knowledge.ts'
import { createCompany } from './service.ts'

type Row = Record<string, unknown>

const keys = (body: { properties: object }) => Object.keys(body.properties)

/** Where each kind of record sits in the document, and how its audit event names it. */
const SECTIONS: {
  table: PortableTable
  key: 'agents' | 'projects' | 'goals' | 'routines' | 'tasks'
  entity: 'agent' | 'project' | 'goal' | 'routine' | 'task'
  label: (r: Row, prefix: string) => string
  /** What the audit event's changes show: the fields a client sets, as for a record made through the API. */
  fields: readonly string[]
}[] = [
  { table: 'agents', key: 'agents', entity: 'agent', label: (r) => String(r.name), fields: [...keys(AgentPatchBody), 'status'] },
  { table: 'projects', key: 'projects', entity: 'project', label: (r) => String(r.name), fields: keys(ProjectPatchBody) },
  { table: 'goals', key: 'goals', entity: 'goal', label: (r) => String(r.title), fields: keys(GoalPatchBody) },
  { table: 'routines', key: 'routines', entity: 'routine', label: (r) => String(r.title), fields: keys(RoutinePatchBody) },
  { table: 'tasks', key: 'tasks', entity: 'task', label: (r, prefix) => `${prefix}-${r.number} ${r.title}`, fields: keys(TaskPatchBody) },
]

/**
 * Records a statement inserts at most. A whole section in one statement (the tasks of a large
 * company) took the database's memory with it, for good on the embedded one, whose memory does
 * not shrink again.
 */
const CHUNK = 2_000

/** An agent's state of work does not travel: a busy or failed agent arrives idle, one awaiting its hire approval paused. */
const ARRIVING_STATUS: Record<string, string> = { running: 'idle', error: 'idle', pending_approval: 'paused' }

/**
 * Creates a new company owned by the caller from a document: every record gets a new id and
 * the references between them follow; task numbers (so keys) are kept. Each record gets an
 * audit event `created`, and open assigned tasks their assignment runs. Anything the database
 * refuses is a 422 naming the record; nothing is kept of a refused import (one transaction).
 */
export async function importCompany(tx: Tx, userId: string, actor: Actor, doc: CompanyImport): Promise<Company> {
  const company = await createCompany(tx, userId, actor, {
    name: doc.name ?? doc.company.name,
    mission: doc.company.mission ?? null,
    monthly_budget_cents: doc.company.monthly_budget_cents ?? 0,
    task_prefix: doc.task_prefix ?? doc.company.task_prefix ?? 'SVC',
  })
  // The tasks and their runs are counted once they are all written (recount_totals, below), not
  // one by one at commit, where each count met the transaction's earlier versions of its row: a
  // document of 16,000 tasks took 3.1 s so, 0.8 s now (32,000: 10-11 s, 1.7 s).
  await tx.query("SELECT set_config('shopfloor.uncounted_company', $1, true)", [company.id])
  const stamp = await inOrder(tx)
  const skillIds = await importSkills(tx, company.id, actor, doc, stamp)
  const ids = new Map<string, Map<string, string>>() // table -> document id -> new id
  for (const table of ['agents', 'projects', 'goals', 'routines', 'tasks'] as const) {
    const seen = new Map<string, string>()
    for (const [i, r] of (doc[table] ?? []).entries()) {
      if (seen.has(r.id)) throw invalidField('body', `${table}.${i}.id`, `Another record of ${table} has the id "${r.id}"`, r.id)
      seen.set(r.id, crypto.randomUUID())
    }
    ids.set(table, seen)
  }

  for (const section of SECTIONS) {
    const columns = await portableColumns(tx, section.table)
    const rows = doc[section.key] ?? []
    const selfRefs = Object.entries(columns.refs).filter(([, target]) => target === section.table).map(([c]) => c)
    for (let start = 0; start < rows.length; start += CHUNK) {
      const records: ImportRow[] = []
      for (let i = start; i < Math.min(start + CHUNK, rows.length); i++) {
        const values = resolve(rows[i], columns, ids, `${section.key}.${i}`, selfRefs)
        values.id = ids.get(section.table)!.get(rows[i].id)
        values.created_at ??= stamp()
        if (section.table === 'agents') {
          checkAgent(values, `${section.key}.${i}`)
          values.skills = agentSkills((rows[i] as Row).skills, skillIds, `${section.key}.${i}`)
        }
        records.push({ values, at: `${section.key}.${i}` })
        // A reference within the table is written once all rows exist (below); the event has it now.
        const refs = Object.fromEntries(selfRefs.map((c) => [c, ids.get(section.table)!.get(String((rows[i] as Row)[c])) ?? null]))
        await recordAudit(tx, {
          companyId: company.id, actor, verb: 'created', entityType: section.entity, entityId: values.id as string,
          label: section.label(values, company.task_prefix), changes: diff({}, { ...values, ...refs }, section.fields),
        })
      }
      await insertAll(tx, section.table, company.id, records)
    }
    // References within the table (org chart, sub-goals, sub-tasks) once all its rows exist;
    // without cycles, which the API refuses on every other way in (ORG_CYCLE, GOAL_CYCLE, TASK_CYCLE).
    for (const column of selfRefs) {
      const looped = cycleAt(rows as Row[], column)
      if (looped !== null) {
        throw invalidField('body', `${section.key}.${looped}.${column}`, `Makes a cycle: the record would be its own ${column === 'reports_to_id' ? 'manager' : 'ancestor'} through ${column}`, (rows[looped] as Row)[column])
      }
      const pairs: [string, string][] = []
      for (const [i, r] of rows.entries() as Iterable<[number, Row]>) {
        if (r[column] == null) continue
        pairs.push([ids.get(section.table)!.get(r.id as string)!, ref(ids, section.table, r[column], `${section.key}.${i}.${column}`)])
      }
      if (pairs.length === 0) continue
      await tx.query(
        `UPDATE ${section.table} t SET "${column}" = p.target FROM unnest($1::uuid[], $2::uuid[]) AS p(id, target) WHERE t.id = p.id`,
        [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
      )
    }
  }

  await importDocuments(tx, company.id, actor, doc, ids, stamp)

  const commentColumns = await portableColumns(tx, 'task_comments')
  let comments: ImportRow[] = []
  for (const [i, task] of (doc.tasks ?? []).entries()) {
    for (const [j, comment] of (task.comments ?? []).entries()) {
      const at = `tasks.${i}.comments.${j}`
      const values = resolve(comment, commentColumns, ids, at, [])
      values.id = crypto.randomUUID()
      values.task_id = ids.get('tasks')!.get(task.id)
      values.created_at ??= stamp()
      // Arrived as it was written: the web app marks a comment changed since it was made "(edited)".
      values.updated_at = values.created_at
      // Written by the import, so by the person the audit trail names for it: one name on the task and in the log.
      values.author_user_id = actor.type === 'user' ? actor.userId : null
      comments.push({ values, at })
      await recordAudit(tx, {
        companyId: company.id, actor, verb: 'created', entityType: 'comment', entityId: values.id as string,
        label: `${company.task_prefix}-${task.number}`, changes: diff({}, values, keys(CommentPatchBody)),
      })
      if (comments.length === CHUNK) {
        await insertAll(tx, 'task_comments', company.id, comments)
        comments = []
      }
    }
  }
  await insertAll(tx, 'task_comments', company.id, comments)
  const top = Math.max(0, ...(doc.tasks ?? []).map((t) => t.number))
  await tx.query('UPDATE companies SET last_task_number = $2 WHERE id = $1', [company.id, top])
  await queueAssignments(tx, company.id, actor)
  await tx.query('SELECT recount_totals(ARRAY[$1::uuid])', [company.id])
  return company
}

/**
 * The imported tasks start as created ones do (tasks/create.ts): each open task (not backlog,
 * done or cancelled) whose assignee is available gets its `assignment` run, with its audit event
 * and `run.created`. A template's first tasks are thus worked on once a runner connects, and a
 * company moved from another installation picks up its open work where it was.
 */
async function queueAssignments(tx: Tx, companyId: string, actor: Actor): Promise<void> {
  const runs = await tx.many<{ id: string; agent_id: string; agent_name: string }>(
    `SELECT r.id, r.agent_id, a.name AS agent_name
       FROM tasks t JOIN agents a ON a.id = t.assignee_agent_id
       CROSS JOIN LATERAL queue_run($1, a.id, t.id, NULL, 'assignment', '[]'::jsonb) r
      WHERE t.company_id = $1 AND NOT (a.status = ANY($2::text[])) AND NOT (t.status = ANY($3::text[]))
      ORDER BY t.number`,
    [companyId, DORMANT_STATUSES, NO_RUN_STATUSES],
  )
  for (const run of runs) {
    await runQueued(tx, { companyId, runId: run.id, agentId: run.agent_id, agentName: run.agent_name, trigger: 'assignment', actor })
  }
}

/**
 * Creation times for records a document gives none (a template's): the transaction's time, 1 µs
 * apart in the document's order, so that lists ordered by creation (agents, goals, projects,
 * routines, comments) show them as the document does. All at the transaction's one instant,
 * they were listed in the order of their random ids (a template's CEO fourth of five).
 */
async function inOrder(tx: Tx): Promise<() => string> {
  const row = await tx.one<{ us: string }>("SELECT (extract(epoch FROM now()) * 1000000)::bigint::text AS us")
  let next = BigInt(row!.us)
  return () => {
    const us = next++
    const iso = new Date(Number(us / 1000n)).toISOString() // millisecond precision, then the microseconds
    return `${iso.slice(0, 23)}${String(us % 1000n).padStart(3, '0')}Z`
  }
}

/**
 * An agent's adapter settings must suit its adapter, as for a hire (the document's schema checks
 * each field alone); its state of work does not travel.
 */
function checkAgent(values: Row, at: string): void {
  if (typeof values.status === 'string') values.status = ARRIVING_STATUS[values.status] ?? values.status
  // Not named by the record: what a hire gives (an explicit null stays null).
  if (values.role === undefined) values.role = HIRE_DEFAULTS.role
  if (values.adapter === undefined) values.adapter = HIRE_DEFAULTS.adapter
  const config = values.adapter_config
  if (config && typeof config === 'object' && !Array.isArray(config)) {
    const problem = adapterConfigProblem(typeof values.adapter === 'string' ? values.adapter : null, config as Row)
    if (problem) throw invalidField('body', `${at}.${problem.field}`, problem.message)
  }
}

/** The index of a record whose chain of `column` comes back to it, or null when no chain loops. */
function cycleAt(rows: Row[], column: string): number | null {
  const index = new Map(rows.map((r, i) => [r.id as string, i]))
  const state = new Map<string, 'walking' | 'done'>()
  for (const start of rows) {
    const path: string[] = []
    let id = start.id as string | undefined
    while (id !== undefined && index.has(id) && !state.has(id)) {
      state.set(id, 'walking')
      path.push(id)
      const next = rows[index.get(id)!][column]
      id = next == null ? undefined : String(next)
    }
    if (id !== undefined && state.get(id) === 'walking') return index.get(id)!
    for (const walked of path) state.set(walked, 'done')
  }
  return null
}

function ref(ids: Map<string, Map<string, string>>, table: PortableTable, value: unknown, at: string): string {
  const found = typeof value === 'string' ? ids.get(table)!.get(value) : undefined
  if (!found) throw invalidField('body', at, `No record of ${table} in the document has the id "${String(value)}"`, value)
  return found
}

/** The record's portable values with its references translated to the new ids (those in `later` are left out). */
function resolve(record: Row, columns: PortableColumns, ids: Map<string, Map<string, string>>, at: string, later: string[]): Row {
  const values: Row = {}
  for (const column of columns.plain) if (record[column] !== undefined) values[column] = record[column]
  for (const [column, target] of Object.entries(columns.refs)) {
    if (record[column] == null || later.includes(column)) continue
    values[column] = ref(ids, target, record[column], `${at}.${column}`)
  }
  return values
}

/** A record to insert: its values and where it is in the document (`tasks.3`), for a refusal's message. */
interface ImportRow {
  values: Row
  at: string
}

/** A class 22 (bad value) or 23 (constraint) error: the database refused what the document holds. */
const refused = (err: any) => typeof err?.code === 'string' && /^2[23]/.test(err.code)

/**
 * Records of one section (at most CHUNK), one statement for each set of columns (a record's
 * missing values take the column's default, as one insert of its own would give them): a
 * document of 16,000 tasks took 9 s as one insert per record. Should the database refuse one,
 * the statement is taken back to a savepoint and the records are inserted one by one, so that
 * the 422 names the record.
 */
async function insertAll(tx: Tx, table: PortableTable, companyId: string, records: ImportRow[]): Promise<void> {
  const bySignature = new Map<string, Row[]>()
  for (const { values } of records) {
    const row = { ...values, company_id: companyId }
    const signature = Object.keys(row).sort().join(',')
    const group = bySignature.get(signature)
    if (group) group.push(row)
    else bySignature.set(signature, [row])
  }
  if (bySignature.size === 0) return
  await tx.query('SAVEPOINT import_section')
  try {
    for (const [signature, rows] of bySignature) {
      const columns = signature.split(',').map((c) => `"${c}"`).join(', ')
      await tx.query(`INSERT INTO ${table} (${columns}) SELECT ${columns} FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb)`, [JSON.stringify(rows)])
    }
  } catch (err) {
    if (!refused(err)) throw err
    await tx.query('ROLLBACK TO SAVEPOINT import_section')
    for (const { values, at } of records) await insert(tx, table, companyId, values, at)
  }
  await tx.query('RELEASE SAVEPOINT import_section')
}

/** One row from its values; the database's refusal (a constraint, a bad value) becomes a 422 naming the record. */
async function insert(tx: Tx, table: PortableTable, companyId: string, values: Row, at: string): Promise<void> {
  const row = { ...values, company_id: companyId }
  const columns = Object.keys(row).map((c) => `"${c}"`).join(', ')
  try {
    await tx.query(`INSERT INTO ${table} (${columns}) SELECT ${columns} FROM jsonb_populate_record(NULL::${table}, $1::jsonb)`, [JSON.stringify(row)])
  } catch (err: any) {
    if (refused(err)) throw invalidField('body', at, `The record was refused: ${err.message}`)
    throw err
  }
}

