import { performance } from 'node:perf_hooks'
import os from 'node:os'
import fs from 'node:fs'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { compiledEntry } from '/work/main/bin/compiled.js'
import { migrate } from '/work/main/src/server/db/migrate.ts'
import { openPglite } from '/work/main/src/server/db/pglite.ts'
import { openPostgres } from '/work/main/src/server/db/postgres.ts'
const t = () => performance.now()
let a = t()
const admin = openPostgres('postgres://postgres@127.0.0.1:5432/postgres', undefined, 1)
await admin.query('DROP DATABASE IF EXISTS tsetup'); await admin.query('CREATE DATABASE tsetup'); await admin.close()
const db = openPostgres('postgres://postgres@127.0.0.1:5432/tsetup', undefined, 1); await migrate(db); await db.close()
console.log('pg', (t()-a).toFixed(0)); a = t()
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsp-'))
const p = await openPglite(dir); console.log('pglite open', (t()-a).toFixed(0)); await migrate(p); await p.close()
console.log('pglite migrate', (t()-a).toFixed(0)); a = t()
const raw = new PGlite({ dataDir: dir }); await raw.waitReady
const buf = Buffer.from(await (await raw.dumpDataDir('none')).arrayBuffer()); await raw.close()
console.log('dump', (t()-a).toFixed(0), buf.length); a = t()
await compiledEntry('/work/main', 'src/cli/main.ts', fs.mkdtempSync(path.join(os.tmpdir(), 'tsc-')))
console.log('compile', (t()-a).toFixed(0))
