import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { migrate } from '../../src/server/db/migrate.ts'
import { openPglite } from '../../src/server/db/pglite.ts'
import { openPostgres } from '../../src/server/db/postgres.ts'
import { dumpSchema } from '../../src/server/db/schema-dump.ts'
import { scratchPostgres, TEST_DATABASE_URL } from '../helpers.ts'

const SCHEMA_FILE = path.resolve(import.meta.dirname, '../../src/server/db/schema.sql')
const STALE = 'src/server/db/schema.sql is not what the migrations make: run `npm run schema:dump` and review the difference'

// The checked-in schema.sql is the dump of a PostgreSQL server. The embedded database has no
// pg_trgm (the baseline migration skips the extension and its trigram indexes there); all else is equal.
const withoutTrigrams = (sql: string) =>
  sql.split('\n').filter((line) => !/pg_trgm|gin_trgm_ops/.test(line)).join('\n').replace(/\n{3,}/g, '\n\n')

describe('schema.sql', () => {
  it.runIf(TEST_DATABASE_URL)('is the schema the migrations give a new PostgreSQL database', async () => {
    const scratch = (await scratchPostgres())!
    const db = openPostgres(scratch.url, undefined, 1)
    try {
      await migrate(db)
      expect(await dumpSchema(db), STALE).toBe(fs.readFileSync(SCHEMA_FILE, 'utf8'))
    } finally {
      await db.close()
      await scratch.drop()
    }
  })

  it('is the schema the migrations give a new embedded database, less the trigram indexes', async () => {
    const db = await openPglite(null)
    try {
      await migrate(db)
      expect(withoutTrigrams(await dumpSchema(db)), STALE).toBe(withoutTrigrams(fs.readFileSync(SCHEMA_FILE, 'utf8')))
    } finally {
      await db.close()
    }
  })
})
