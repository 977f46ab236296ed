import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Db } from '../../src/server/db/db.ts'
import { STATEMENT_LIMIT } from '../../src/server/db/pglite-statements.ts'
import { parsers } from '../../src/server/db/types.ts'
import { embeddedDb } from '../databases.ts'

// The embedded database prepares each statement with parameters once (pglite-statements.ts).
// These run on the embedded database whatever TEST_DATABASE_URL says: it is the subject.

let db: Db
beforeAll(async () => {
  db = await embeddedDb({ empty: true })
})
afterAll(async () => db?.close())

const prepared = async () => Number((await db.one<{ n: number }>('SELECT count(*) AS n FROM pg_prepared_statements'))!.n)

describe('prepared statements of the embedded database', () => {
  it('prepare a statement with parameters once and run it again by name', async () => {
    const sql = 'SELECT $1::int + 1 AS n'
    const before = await prepared()
    expect(await db.one(sql, [1])).toEqual({ n: 2 })
    expect(await db.one(sql, [41])).toEqual({ n: 42 })
    expect(await prepared()).toBe(before + 1)
    const rows = await db.many('SELECT statement FROM pg_prepared_statements')
    expect(rows.filter((r) => r.statement === sql)).toHaveLength(1)
  })

  it("give the same values as PGlite's own query(), for every type the service reads", async () => {
    const reference = new PGlite({ parsers })
    try {
      await reference.exec("SET TIME ZONE 'UTC'")
      const sql = `SELECT $1::timestamptz AS at, $2::numeric AS amount, $3::jsonb AS doc, $4::text[] AS tags,
        $5::bigint AS big, $6::bool AS flag, $7::text AS nothing, $8::int AS n, $9::date AS day, $10::json AS raw,
        $11::timestamptz[] AS stamps, $12::uuid AS id, $13::timestamp AS local, count(*) OVER () AS total`
      const params = [
        '2026-01-02T03:04:05.5Z', '12.50', { a: [1, 'x'], at: '2026-01-02T03:04:05.5+00:00' }, ['a', 'b c', null],
        '9007199254740991', true, null, 7, '2026-01-02', JSON.stringify({ b: null }),
        ['2026-01-02 03:04:05+00', '2026-01-02 03:04:05.123456+00'], '5f0c6f8e-2b1a-4c43-9a3e-0d6b0d9b7f10', '2026-01-02 03:04:05',
      ]
      const ours = await db.query(sql, params)
      const theirs = await reference.query(sql, params)
      expect(ours.rows).toEqual(theirs.rows)
      expect(ours.rows[0]).toMatchObject({ at: '2026-01-02T03:04:05.500000+00:00', amount: 12.5, big: 9007199254740991, flag: true, nothing: null, total: 1 })
      // A second run, from the cache, gives them again.
      expect((await db.query(sql, params)).rows).toEqual(theirs.rows)

      // Affected rows, with and without RETURNING, inside and outside a transaction.
      for (const target of [db, reference]) await target.exec('CREATE TEMP TABLE counted (n int)')
      const writes: [string, unknown[]][] = [
        ['INSERT INTO counted SELECT generate_series(1, $1::int)', [3]],
        ['UPDATE counted SET n = n + $1 WHERE n > 1 RETURNING n', [10]],
        ['DELETE FROM counted WHERE n = $1', [99]],
        ['SELECT n FROM counted WHERE n > $1 ORDER BY n', [0]],
      ]
      for (const [text, values] of writes) {
        const expected = await reference.query(text, values)
        const mine = await db.query(text, values)
        expect(mine.rows).toEqual(expected.rows)
        expect(mine.rowCount).toBe(expected.affectedRows)
      }
      const inside = await db.transaction((tx) => tx.query('UPDATE counted SET n = n WHERE n < $1', [100]))
      expect(inside.rowCount).toBe(3)
    } finally {
      await reference.close()
    }
  })

  it('throw the database error of a failed statement (SQLSTATE, constraint) and leave the session working', async () => {
    await db.exec('CREATE TEMP TABLE uniq (k text CONSTRAINT uniq_k UNIQUE)')
    const insert = 'INSERT INTO uniq (k) VALUES ($1)'
    await db.query(insert, ['a'])
    const err: any = await db.query(insert, ['a']).catch((e) => e)
    expect(err.code).toBe('23505')
    expect(err.constraint).toBe('uniq_k')
    expect(err.query).toBe(insert)
    expect(err.params).toEqual(['a'])
    // The session is ready for the next statement, prepared or not.
    await db.query(insert, ['b'])
    expect((await db.many('SELECT k FROM uniq WHERE k <> $1 ORDER BY k', ['-'])).map((r) => r.k)).toEqual(['a', 'b'])

    // Inside a transaction: the transaction rolls back, and the session goes on.
    const inTx: any = await db
      .transaction(async (tx) => {
        await tx.query(insert, ['c'])
        await tx.query(insert, ['a'])
      })
      .catch((e) => e)
    expect(inTx.code).toBe('23505')
    expect(await db.one('SELECT k FROM uniq WHERE k = $1', ['c'])).toBeNull()

    // A statement that does not parse throws its syntax error and is not kept.
    const before = await prepared()
    const bad: any = await db.query('SELEC $1', [1]).catch((e) => e)
    expect(bad.code).toBe('42601')
    expect(await prepared()).toBe(before)
    expect(await db.one('SELECT $1::text AS v', ['ok'])).toEqual({ v: 'ok' })
  })

  it('keep a statement first prepared in a transaction that rolled back', async () => {
    await db.exec('CREATE TEMP TABLE kept (n int)')
    const sql = 'INSERT INTO kept (n) VALUES ($1) RETURNING n'
    await expect(
      db.transaction(async (tx) => {
        await tx.query(sql, [1])
        throw new Error('abort')
      }),
    ).rejects.toThrow('abort')
    expect(await db.one(sql, [2])).toEqual({ n: 2 })
    expect(await db.one(sql, [3])).toEqual({ n: 3 })
    expect((await db.many('SELECT n FROM kept ORDER BY n')).map((r) => r.n)).toEqual([2, 3])
  })

  it('prepare a statement again when its result type changed or the database dropped it', async () => {
    await db.exec('CREATE TEMP TABLE grows (a int)')
    await db.query('INSERT INTO grows (a) VALUES ($1)', [1])
    const sql = 'SELECT * FROM grows WHERE a = $1'
    expect(await db.many(sql, [1])).toEqual([{ a: 1 }])
    const before = await prepared()
    await db.exec('ALTER TABLE grows ADD COLUMN b text')
    expect(await db.many(sql, [1])).toEqual([{ a: 1, b: null }])
    expect(await prepared()).toBe(before) // the old one was closed
    await db.exec('DEALLOCATE ALL')
    expect(await db.many(sql, [1])).toEqual([{ a: 1, b: null }])
    // Inside a transaction the error has aborted it; the statement is prepared anew afterwards.
    await db.exec('ALTER TABLE grows ADD COLUMN c text')
    const err: any = await db.transaction((tx) => tx.many(sql, [1])).catch((e) => e)
    expect(err.code).toBe('0A000')
    expect(await db.transaction((tx) => tx.many(sql, [1]))).toEqual([{ a: 1, b: null, c: null }])
  })

  it('run a statement once when it fails for a reason of its own, even one of the same SQLSTATE', async () => {
    // A sequence is not rolled back: it counts the runs of the failing statement.
    await db.exec(`CREATE TEMP SEQUENCE tries;
      CREATE FUNCTION pg_temp.unsupported(n int) RETURNS int LANGUAGE plpgsql AS $$
      BEGIN PERFORM nextval('tries'); RAISE EXCEPTION 'not here' USING ERRCODE = '0A000'; END $$`)
    const err: any = await db.query('SELECT pg_temp.unsupported($1)', [1]).catch((e) => e)
    expect(err.code).toBe('0A000')
    expect(await db.one('SELECT last_value FROM tries')).toEqual({ last_value: 1 })
  })

  it('keep at most STATEMENT_LIMIT statements, and still run every text beyond them', async () => {
    const count = STATEMENT_LIMIT + 50
    for (let i = 0; i < count; i++) {
      expect(await db.one(`SELECT $1::int + ${i} AS n`, [1])).toEqual({ n: 1 + i })
    }
    expect(await prepared()).toBeLessThanOrEqual(STATEMENT_LIMIT)
    expect(await prepared()).toBeGreaterThan(STATEMENT_LIMIT - 10)
    // The oldest texts were closed; they prepare again.
    expect(await db.one('SELECT $1::int + 0 AS n', [5])).toEqual({ n: 5 })
    expect(await prepared()).toBeLessThanOrEqual(STATEMENT_LIMIT)
  })

  it('run statements started together one after the other, beside a transaction', async () => {
    await db.exec('CREATE TEMP TABLE together (n int)')
    const results = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => db.one('INSERT INTO together (n) VALUES ($1) RETURNING n', [i])),
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO together (n) VALUES ($1)', [100])
        return tx.one('SELECT count(*) AS c FROM together WHERE n >= $1', [100])
      }),
    ])
    expect(results.at(-1)).toEqual({ c: 1 })
    expect(await db.one('SELECT count(*) AS c FROM together WHERE n >= $1', [0])).toEqual({ c: 21 })
  })
})
