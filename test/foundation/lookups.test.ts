// A statement that finds a row by its id (or a task by its key) in a company gives the company
// as `company_id = (SELECT $n::uuid)`: a value the planner sees only when the statement runs, so
// it plans for the average company. Given as a plain parameter, a company that the statistics'
// most-common values leave out (any company created since they were taken, when the few
// companies then known all fitted in the list) is estimated at no rows, and an index led by
// company_id looked as cheap as the primary key: the lookup read the company's whole part of it
// (test/company/statistics.test.ts shows the reads).
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

/** `id = ... AND company_id = $n`, and `company_id = $n AND id|number = ...`, on one line. */
const PLAIN_COMPANY = [
  /\b(?:\w+\.)?id = (?:\(SELECT [^)]*\)|\S+) AND (?:\w+\.)?company_id = \$\d/,
  /\b(?:\w+\.)?company_id = \$\d+(?:::uuid)? AND (?:\w+\.)?(?:id|number) = (?:\$|ANY\(\$)/,
]

describe('lookups by id in a company', () => {
  it('give the company as (SELECT $n::uuid)', () => {
    const offending = sourceFiles(SRC).flatMap((file) =>
      fs.readFileSync(file, 'utf8').split('\n').flatMap((line, i) =>
        PLAIN_COMPANY.some((p) => p.test(line)) ? [`${path.relative(SRC, file)}:${i + 1}: ${line.trim()}`] : [],
      ),
    )
    expect(offending).toEqual([])
  })

  it('the rule recognises the plain form', () => {
    // Guards the patterns themselves: each form seen before the rule is caught.
    for (const line of [
      'SELECT 1 FROM runs WHERE id = $1 AND company_id = $2',
      'WHERE t.id = $1 AND t.company_id = $2 FOR NO KEY UPDATE',
      'WHERE id = (SELECT goal_id FROM task) AND company_id = $1',
      'WHERE t.company_id = $1 AND t.number = $2',
      'WHERE t.company_id = $1 AND t.id = ANY($2::uuid[])',
    ]) {
      expect(PLAIN_COMPANY.some((p) => p.test(line)), line).toBe(true)
    }
    expect(PLAIN_COMPANY.some((p) => p.test('WHERE id = $1 AND company_id = (SELECT $2::uuid)'))).toBe(false)
  })
})
