import type { Queryable } from './db.ts'

/**
 * The schema of a database as SQL text, built from PostgreSQL's catalogs so that it reads the
 * same on a PostgreSQL server and on the embedded database (which has no pg_dump): extensions,
 * then each table of the public schema with its columns, constraints, storage options, indexes
 * and triggers, then the functions. Everything in name order, so two dumps of one schema are
 * identical. src/server/db/schema.sql is this dump of a freshly migrated database
 * (`npm run schema:dump`).
 */
export async function dumpSchema(db: Queryable): Promise<string> {
  const out: string[] = [HEADER]

  const extensions = await db.many<{ extname: string }>(
    `SELECT extname FROM pg_extension WHERE extname <> 'plpgsql' ORDER BY extname`,
  )
  for (const e of extensions) out.push(`CREATE EXTENSION ${e.extname};`)
  if (extensions.length) out.push('')

  const tables = await db.many<{ oid: number; name: string; options: string[] | null }>(
    `SELECT c.oid::int AS oid, c.relname AS name, c.reloptions AS options
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
      ORDER BY c.relname`,
  )
  for (const table of tables) {
    const columns = await db.many<{ name: string; type: string; not_null: boolean; def: string | null }>(
      `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null,
              pg_get_expr(d.adbin, d.adrelid) AS def
         FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum`,
      [table.oid],
    )
    const lines = columns.map((c) => `  ${c.name} ${c.type}${c.not_null ? ' NOT NULL' : ''}${c.def ? ` DEFAULT ${c.def}` : ''}`)
    out.push(`CREATE TABLE ${table.name} (\n${lines.join(',\n')}\n);`)

    // NOT NULL is on its column (newer PostgreSQL versions also list it as a constraint).
    const constraints = await db.many<{ name: string; def: string }>(
      `SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
        WHERE conrelid = $1 AND contype <> 'n' ORDER BY conname`,
      [table.oid],
    )
    for (const c of constraints) out.push(`ALTER TABLE ${table.name} ADD CONSTRAINT ${c.name} ${c.def};`)
    if (table.options?.length) out.push(`ALTER TABLE ${table.name} SET (${table.options.join(', ')});`)

    // Indexes that back a constraint (primary keys, UNIQUE) are the constraint's, above.
    const indexes = await db.many<{ def: string }>(
      `SELECT pg_get_indexdef(i.indexrelid) AS def
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE i.indrelid = $1 AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.conrelid = i.indrelid)
        ORDER BY c.relname`,
      [table.oid],
    )
    for (const i of indexes) out.push(`${i.def};`)

    const triggers = await db.many<{ def: string }>(
      `SELECT pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE tgrelid = $1 AND NOT tgisinternal ORDER BY tgname`,
      [table.oid],
    )
    for (const t of triggers) out.push(`${t.def};`)
    out.push('')
  }

  // Functions of the public schema, leaving out those an extension brings.
  const functions = await db.many<{ def: string }>(
    `SELECT pg_get_functiondef(p.oid) AS def
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'public'
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
      ORDER BY p.proname, pg_get_function_identity_arguments(p.oid)`,
  )
  for (const f of functions) out.push(`${f.def.trimEnd()};`, '')

  return `${out.join('\n').trimEnd()}\n`
}

const HEADER = `-- The schema of a freshly migrated database, as PostgreSQL's catalogs describe it: what the
-- migrations in src/server/db/migrations add up to. Generated: do not edit. After adding a
-- migration, run \`npm run schema:dump\` (test/foundation/schema.test.ts fails until then).
`
