import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { migrate } from '../../src/server/db/migrate.ts'
import { dumpSchema } from '../../src/server/db/schema-dump.ts'
import { emptyDb } from '../helpers.ts'

const SCHEMA_FILE = path.resolve(import.meta.dirname, '../../src/server/db/schema.sql')
const STALE = 'src/server/db/schema.sql is not what the migrations make: run `npm run schema:dump` and review the difference'

// The checked-in schema.sql is the dump of a PostgreSQL server. The embedded database has no
// pg_trgm (the baseline migration skips the extension and its trigram indexes there); all else
// is equal.
const withoutTrigrams = (sql: string) =>
  sql.split('\n').filter((line) => !/pg_trgm|gin_trgm_ops/.test(line)).join('\n').replace(/\n{3,}/g, '\n\n')

describe('schema.sql', () => {
  it('is the schema the migrations give a new database (PostgreSQL with TEST_DATABASE_URL, else embedded)', async () => {
    const db = await emptyDb()
    try {
      await migrate(db)
      const expected = fs.readFileSync(SCHEMA_FILE, 'utf8')
      const actual = await dumpSchema(db)
      if (db.kind === 'postgres') expect(actual, STALE).toBe(expected)
      else expect(withoutTrigrams(actual), STALE).toBe(withoutTrigrams(expected))
    } finally {
      await db.close()
    }
  })
})
