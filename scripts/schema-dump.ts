// `npm run schema:dump`: migrates a new, empty database on the PostgreSQL server named by
// TEST_DATABASE_URL (or DATABASE_URL), writes its schema to src/server/db/schema.sql and drops
// the database again. PostgreSQL rather than the embedded database: the file shows the schema a
// server has, with the pg_trgm indexes the embedded database goes without.
import fs from 'node:fs'
import path from 'node:path'
import { migrate } from '../src/server/db/migrate.ts'
import { openPostgres } from '../src/server/db/postgres.ts'
import { dumpSchema } from '../src/server/db/schema-dump.ts'

const server = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL
if (!server) {
  console.error('schema:dump needs a PostgreSQL server: set TEST_DATABASE_URL (or DATABASE_URL), e.g. postgres://postgres@127.0.0.1:5432/postgres')
  process.exit(2)
}
const target = path.resolve(import.meta.dirname, '..', 'src', 'server', 'db', 'schema.sql')
const name = `shopfloor_schema_dump_${process.pid}`
const url = new URL(server)
url.pathname = `/${name}`

const admin = openPostgres(server, undefined, 1)
await admin.query(`CREATE DATABASE ${name}`)
try {
  const db = openPostgres(url.toString(), undefined, 1)
  try {
    await migrate(db)
    fs.writeFileSync(target, await dumpSchema(db))
  } finally {
    await db.close()
  }
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await admin.close()
}
console.log(`wrote ${path.relative(process.cwd(), target)}`)
