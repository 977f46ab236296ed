// A write that PostgreSQL aborts to break a deadlock runs again instead of failing, and only
// the events of the attempt that committed are published.
import crypto from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { migrate } from '../../src/server/db/migrate.ts'
import type { CompanyEvent } from '../../src/server/events/bus.ts'
import { memoryBus } from '../../src/server/events/bus.ts'
import { openPostgres } from '../../src/server/db/postgres.ts'
import { write } from '../../src/server/db/write.ts'
import { scratchPostgres, TEST_DATABASE_URL } from '../helpers.ts'

describe.runIf(TEST_DATABASE_URL)('deadlocks', () => {
  it('two writes locking two rows in opposite orders both succeed; the loser publishes only its committed attempt', async () => {
    const scratch = (await scratchPostgres())!
    const db = openPostgres(scratch.url)
    const bus = memoryBus()
    const published: [string, CompanyEvent][] = []
    bus.subscribeAll((company, event) => published.push([company, event]))
    try {
      await migrate(db) // write() turns events into webhook deliveries, in the company's tables
      await db.exec('CREATE TABLE pair (id integer PRIMARY KEY, n integer NOT NULL); INSERT INTO pair VALUES (1, 0), (2, 0)')
      // Each write locks its first row, waits until the other has locked its own, then asks
      // for the other's row: a deadlock, which PostgreSQL breaks by aborting one of them.
      let locked = 0
      const bothLocked = async () => {
        locked++
        const deadline = Date.now() + 5_000
        while (locked < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
      }
      let attempts = 0
      const company = crypto.randomUUID()
      const crossing = (first: number, second: number) =>
        write({ db, bus }, async (tx) => {
          attempts++
          tx.publish(company, { type: 'pair.updated', id: `${first} attempt ${attempts}` })
          await tx.query('UPDATE pair SET n = n + 1 WHERE id = $1', [first])
          await bothLocked()
          await tx.query('UPDATE pair SET n = n + 1 WHERE id = $1', [second])
        })
      await Promise.all([crossing(1, 2), crossing(2, 1)])
      // At least one ran again. The loser's next attempt may even lock its first row before the
      // winner, woken by the abort, takes it: a second deadlock, and a fourth attempt.
      expect(attempts).toBeGreaterThanOrEqual(3)
      expect(await db.many('SELECT id, n FROM pair ORDER BY id')).toEqual([{ id: 1, n: 2 }, { id: 2, n: 2 }])
      // One event a write, from its committed attempt: the aborted attempts published nothing.
      expect(published.map(([, e]) => String(e.id).split(' ')[0]).sort()).toEqual(['1', '2'])
    } finally {
      await bus.close()
      await db.close()
      await scratch.drop()
    }
  })
})
