// Db.listen: what the credential cache, the webhook presence cache and the delivery workers
// are woken by. On PostgreSQL every channel of a handle shares one connection of its own.
import { describe, expect, it } from 'vitest'
import type { Db, Listener } from '../../src/server/db/db.ts'
import { openPostgres } from '../../src/server/db/postgres.ts'
import { TEST_DATABASE_URL, testDb, waitFor, workerDatabaseUrl } from '../helpers.ts'

/** Subscribes to `channel`, counting its signals. */
function subscribe(db: Db, channel: string) {
  const got = { signals: 0, listener: null as Listener | null }
  got.listener = db.listen(channel, () => got.signals++)
  return got
}

describe('notifications', () => {
  it('reach the subscribers of their channel only; each is signalled once its channel is listened to', async () => {
    const db = await testDb()
    try {
      const a = subscribe(db, 'probe_a')
      const b = subscribe(db, 'probe_b')
      await waitFor(() => a.listener!.live && b.listener!.live)
      expect([a.signals, b.signals]).toEqual([1, 1])
      await db.exec('NOTIFY probe_a')
      await waitFor(() => a.signals === 2)
      // A second subscriber of a channel already listened to, and a new channel, come live too.
      const b2 = subscribe(db, 'probe_b')
      const c = subscribe(db, 'probe_c')
      await waitFor(() => b2.listener!.live && c.listener!.live)
      expect([b2.signals, c.signals]).toEqual([1, 1])
      await db.exec('NOTIFY probe_b')
      await waitFor(() => b.signals === 2 && b2.signals === 2)
      await db.exec('NOTIFY probe_c')
      await waitFor(() => c.signals === 2)
      expect([a.signals, b.signals, b2.signals, c.signals]).toEqual([2, 2, 2, 2])
    } finally {
      await db.close()
    }
  })

  it.runIf(TEST_DATABASE_URL)('share one connection on PostgreSQL; when it is lost every subscriber is signalled and listens again', async () => {
    const url = (await workerDatabaseUrl())!
    const db = openPostgres(url, undefined, 2)
    const other = openPostgres(url, undefined, 1)
    // Connections whose last statement was one of these LISTENs: this test's only.
    const listening = `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN "probe_shared_%'`
    // The LISTENs go one after the other: pg warns (and its next major version refuses) a
    // statement sent on a connection while another is under way.
    const warnings: string[] = []
    const warned = (w: Error) => warnings.push(w.message)
    process.on('warning', warned)
    try {
      const subscribers = ['probe_shared_1', 'probe_shared_2', 'probe_shared_3'].map((channel) => subscribe(db, channel))
      await waitFor(() => subscribers.every((s) => s.listener!.live))
      expect((await other.one<{ n: number }>(listening))!.n).toBe(1)

      await other.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN "probe_shared_%'`)
      // Signalled when the connection went (anything may have been missed), and again once listening.
      await waitFor(() => subscribers.every((s) => s.signals === 3 && s.listener!.live), 10_000)
      expect((await other.one<{ n: number }>(listening))!.n).toBe(1)
      await other.exec('NOTIFY probe_shared_2')
      await waitFor(() => subscribers[1].signals === 4)
      expect(subscribers.map((s) => s.signals)).toEqual([3, 4, 3])
      expect(warnings.filter((w) => w.includes('already executing a query'))).toEqual([])
    } finally {
      process.off('warning', warned)
      await Promise.all([db.close(), other.close()])
    }
  })
})
