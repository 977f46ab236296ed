// A statement that finds a row by its id in a company gives the company as `company_id IS NOT
// DISTINCT FROM $n`, which no index takes, so only the primary key can find the row; a task by
// key gives it as `company_id = (SELECT $n::uuid)`, a value the planner sees only at execution.
// Given as a plain parameter, a company that the statistics' most-common values leave out (any
// company created since they were taken, when the few companies then known all fitted in the
// list) is estimated at no rows, and an index led by company_id looked as cheap as the primary
// key: the lookup read the company's whole part of it. A value seen at execution is not enough
// for a lookup by id: planned for the average company, a company-led index can still tie with
// the primary key where companies are many and small (test/company/statistics.test.ts and
// test/runs/run-reads.test.ts show the reads).
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = path.resolve(import.meta.dirname, '../../src')

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(full) // migrations are history
    return /\.(ts|sql)$/.test(entry.name) && entry.name !== 'schema.sql' ? [full] : []
  })
}

/** A lookup by id with the company in an indexable form (plain or as a subquery); a lookup by key with a plain one. */
const INDEXABLE_COMPANY = [
  /\b(?:\w+\.)?id = (?:\(SELECT [^)]*\)|ANY\(\S+\)|\S+) AND (?:\w+\.)?company_id = (?:\$\d|\(SELECT \$)/,
  /\b(?:\w+\.)?company_id = (?:\$\d+|\(SELECT \$\d+::uuid\))(?:::uuid)? AND (?:\w+\.)?id = (?:\$|ANY\(\$)/,
  /\b(?:\w+\.)?company_id = \$\d+(?:::uuid)? AND (?:\w+\.)?number = \$/,
]

describe('lookups by id in a company', () => {
  it('give the company in a form no index takes (by id) or as a value seen at execution (by key)', () => {
    const offending = sourceFiles(SRC).flatMap((file) =>
      fs.readFileSync(file, 'utf8').split('\n').flatMap((line, i) =>
        INDEXABLE_COMPANY.some((p) => p.test(line)) ? [`${path.relative(SRC, file)}:${i + 1}: ${line.trim()}`] : [],
      ),
    )
    expect(offending).toEqual([])
  })

  it('the rule recognises the forms it forbids', () => {
    // Guards the patterns themselves: each form seen before the rule is caught.
    for (const line of [
      'SELECT 1 FROM runs WHERE id = $1 AND company_id = $2',
      'SELECT 1 FROM runs WHERE id = $1 AND company_id = (SELECT $2::uuid)',
      'WHERE t.id = $1 AND t.company_id = $2 FOR NO KEY UPDATE',
      'WHERE id = (SELECT goal_id FROM task) AND company_id = $1',
      'WHERE t.company_id = $1 AND t.number = $2',
      'WHERE t.company_id = $1 AND t.id = ANY($2::uuid[])',
      'WHERE t.company_id = (SELECT $1::uuid) AND t.id = ANY($2::uuid[])',
    ]) {
      expect(INDEXABLE_COMPANY.some((p) => p.test(line)), line).toBe(true)
    }
    for (const line of [
      'WHERE id = $1 AND company_id IS NOT DISTINCT FROM $2',
      'WHERE t.company_id = (SELECT $1::uuid) AND t.number = $2',
    ]) {
      expect(INDEXABLE_COMPANY.some((p) => p.test(line)), line).toBe(false)
    }
  })
})
