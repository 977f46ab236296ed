// The outbox across a crash: deliveries committed with their change survive a kill -9 of the
// API process that was sending them, and the next process delivers every one of them.
import { Webhook } from 'standardwebhooks'
import { afterAll, expect, it } from 'vitest'
import { makeWorkspace, startTestServer, type TestServer } from '../runner/harness.ts'
import { openDatabase } from '../../src/server/db/open.ts'
import { startServer } from '../server-process.ts'
import { waitFor } from '../helpers.ts'
import { startReceiver } from './receiver.ts'

let server: TestServer | null = null
afterAll(async () => {
  await server?.close()
})

it('a kill -9 between commit and delivery loses nothing: the restarted API delivers every event', async () => {
  const receiver = await startReceiver()
  receiver.answer = 'hang' // the first attempt never ends: everything else waits behind it
  server = await startTestServer({ WEBHOOKS_ALLOW_PRIVATE: 'true' })
  const w = await makeWorkspace(server.url)
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${server!.server.url}/api/companies/${w.companyId}${path}`, {
      method,
      headers: { authorization: `Bearer ${w.accessToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  const hook = await (await api('POST', '/webhooks', { url: receiver.url, events: ['task.created'] })).json()
  const taskIds: string[] = []
  for (let i = 0; i < 20; i++) {
    const res = await api('POST', '/tasks', { title: `Crash ${i}` })
    expect(res.status).toBe(201)
    taskIds.push((await res.json()).id)
  }
  await waitFor(async () => receiver.received.length >= 1)
  server.server.child.kill('SIGKILL')
  await server.server.stop('SIGKILL')

  // In-flight and taken deliveries come back once their 30-second lease is over: the dead
  // process's leases are made to have run out, instead of waiting for them.
  const db = await openDatabase({ databaseUrl: server.env.DATABASE_URL ?? null, dataDir: server.env.DATA_DIR ?? '' })
  try {
    const leased = await db.many(
      `UPDATE webhook_deliveries SET leased_until = now() - interval '1 second', next_attempt_at = now() - interval '1 second'
        WHERE leased_until > now() RETURNING id`,
    )
    expect(leased.length).toBeGreaterThan(0)
  } finally {
    await db.close()
  }

  receiver.answer = 200
  server.server = await startServer(server.env)
  try {
    await waitFor(async () => new Set(receiver.received.map((r) => JSON.parse(r.body).data.id)).size === 20, 30_000)
    const seen = new Map<string, string>()
    for (const r of receiver.received) {
      const payload = new Webhook(hook.secret).verify(r.body, r.headers) as any
      expect(payload.type).toBe('task.created')
      // At least once: a repeat of an event carries the same webhook-id.
      const before = seen.get(payload.data.id)
      if (before) expect(r.headers['webhook-id']).toBe(before)
      seen.set(payload.data.id, r.headers['webhook-id'])
    }
    expect([...seen.keys()].sort()).toEqual([...taskIds].sort())
  } finally {
    await receiver.close()
  }
}, 240_000)
