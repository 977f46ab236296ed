import { LRUCache } from 'lru-cache'
import type { Queryable } from '../../server/db/db.ts'
import { TASK_JSON_COLUMNS } from './model.ts'

export interface TaskFilters {
  status?: string[]
  assignee_agent_id?: string
  project_id?: string
  goal_id?: string
  parent_id?: string
  q?: string
  created_by?: 'me'
  limit: number
}

/** `text` as a LIKE pattern that matches it literally (backslash is the default escape). */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`)
}

/**
 * Each task's JSON as written for a list, by row version: `<id>:<xmin>`. PostgreSQL gives every
 * version of a row the id of the transaction that wrote it (xmin), so a task changed in any way
 * (by any process or instance) has a new key and is written again, and an entry can never be
 * out of date, only unused (transaction ids come round again after four billion of them, long
 * after an unused entry has left). A page of 500 tasks written by the database took about
 * three times the work of reading the page (docs/benchmarks.md, workload 8); a board read again
 * and again is mostly the same versions. Bounded by characters kept (about 12,000 tasks of
 * 650), least recently used first out. One cache per database handle: copies of one database
 * (tests, restores) share row ids and transaction ids, so keys are only meaningful within one.
 * Versions written twice by one transaction share its xmin, and only that transaction sees the
 * first: lists are read outside transactions (a transaction's handle would get a cache of its
 * own).
 */
const MAX_CHARACTERS = 8_000_000
const caches = new WeakMap<Queryable, LRUCache<string, string>>()
function cacheOf(db: Queryable): LRUCache<string, string> {
  let cache = caches.get(db)
  if (!cache) {
    cache = new LRUCache<string, string>({ maxSize: MAX_CHARACTERS, sizeCalculation: (json, key) => json.length + key.length })
    caches.set(db, cache)
  }
  return cache
}

/**
 * Past this share of a page missing (1 in FEW), the page is written whole: fetching tasks by id
 * and version costs about twice as much a task as writing them in the page's own order.
 */
const FEW = 4
/** A row's version, as the cache knows it. */
const VERSION = `t.id::text || ':' || t.xmin::text`
/** The list's order: each list index (001_baseline.sql) ends in it. */
const LIST_ORDER = 'ORDER BY t.sort_order, t.number DESC'

/**
 * Tasks matching every given filter, ordered by sort_order then newest number, as the JSON
 * array the API answers. Each filter has an index ending in that order (001_baseline.sql), so a
 * page stops after `limit` rows. A status filter without a narrower one is one branch per
 * status, each the first `limit` of its part of tasks_status, merged: as `status = ANY(...)`
 * (which no index reads in list order) it walked the company's whole list and kept the
 * matches, and a status few tasks have, in a company the statistics believe empty, read every
 * task of the company.
 *
 * The page is read as row versions (one short value a task); the tasks whose version the cache
 * lacks are then written as JSON by the database (the same records as TASK_SELECT, timestamps
 * in the API's form), by id and version. A page mostly unknown, or one whose missing tasks
 * changed again in between, is written whole in one statement instead, so that an answer always
 * shows one moment.
 */
export async function listTasksJson(db: Queryable, companyId: string, userId: string, filters: TaskFilters): Promise<string> {
  const params: unknown[] = [companyId]
  // An assignee, project, goal, parent or creator has an index in the list's order: the company
  // is then given as a value the planner sees only at execution (docs/ARCHITECTURE.md), so that
  // a company the statistics believe empty does not make it walk the company's whole list
  // instead of that index.
  const narrowed = Boolean(filters.assignee_agent_id || filters.project_id || filters.goal_id || filters.parent_id || filters.created_by)
  const where = [narrowed ? 't.company_id = (SELECT $1::uuid)' : 't.company_id = $1']
  const add = (condition: (p: string) => string, value: unknown) => {
    params.push(value)
    where.push(condition(`$${params.length}`))
  }
  const byStatus = !narrowed && filters.status?.length ? [...new Set(filters.status)] : []
  if (filters.status?.length && !byStatus.length) add((p) => `t.status = ANY(${p}::text[])`, filters.status)
  if (filters.assignee_agent_id) add((p) => `t.assignee_agent_id = ${p}`, filters.assignee_agent_id)
  if (filters.project_id) add((p) => `t.project_id = ${p}`, filters.project_id)
  if (filters.goal_id) add((p) => `t.goal_id = ${p}`, filters.goal_id)
  if (filters.parent_id) add((p) => `t.parent_id = ${p}`, filters.parent_id)
  if (filters.created_by === 'me') add((p) => `t.created_by_user_id = ${p}`, userId)
  if (filters.q) add((p) => `(t.title ILIKE ${p} OR t.description ILIKE ${p})`, `%${likeLiteral(filters.q)}%`)
  const limit = `$${params.push(filters.limit)}`
  const first = (conditions: string[]) =>
    `SELECT t.*, ${VERSION} AS v FROM tasks t WHERE ${conditions.join(' AND ')} ${LIST_ORDER} LIMIT ${limit}`
  const page = byStatus.length
    ? `(SELECT * FROM (${byStatus.map((status) => `(${first([...where, `t.status = $${params.push(status)}`])})`).join(' UNION ALL ')}) t ${LIST_ORDER} LIMIT ${limit})`
    : `(${first(where)})`

  const cache = cacheOf(db)
  const versions = (await db.many<{ v: string }>(`SELECT t.v FROM ${page} t ${LIST_ORDER}`, params)).map((r) => r.v)
  const json = new Map<string, string>()
  const missing: string[] = []
  for (const v of versions) {
    const kept = cache.get(v)
    if (kept === undefined) missing.push(v)
    else json.set(v, kept)
  }
  const whole = async () => `[${(await writeJson(db, cache, page, params)).map((r) => r.json).join(',')}]`
  if (missing.length > versions.length / FEW) return whole()
  if (missing.length) {
    const ids = missing.map((v) => v.slice(0, v.indexOf(':')))
    const written = await writeJson(
      db, cache,
      `(SELECT t.*, ${VERSION} AS v FROM tasks t WHERE t.company_id IS NOT DISTINCT FROM $1 AND t.id = ANY($2::uuid[]) AND ${VERSION} = ANY($3::text[]))`,
      [companyId, ids, missing],
    )
    if (written.length < missing.length) return whole() // one of them changed since the page was read
    for (const row of written) json.set(row.v, row.json)
  }
  return `[${versions.map((v) => json.get(v)).join(',')}]`
}

/**
 * The records of the tasks `source` holds (a parenthesised query of tasks rows with their
 * version as `v`) as JSON in the page's order, each remembered by its version. The JSON is
 * written after the selection, so a filter that sorts its matches does not write a record of
 * each.
 */
async function writeJson(
  db: Queryable, cache: LRUCache<string, string>, source: string, params: unknown[],
): Promise<{ v: string; json: string }[]> {
  // row_to_json writes no spaces (json_build_object would add three bytes a field).
  const rows = await db.many<{ v: string; json: string }>(
    `SELECT t.v, (SELECT row_to_json(r) FROM (SELECT ${TASK_JSON_COLUMNS}) r)::text AS json
       FROM ${source} t JOIN companies c ON c.id = t.company_id
      ${LIST_ORDER}`,
    params,
  )
  for (const row of rows) cache.set(row.v, row.json)
  return rows
}
