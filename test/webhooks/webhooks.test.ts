// Webhook subscriptions and their delivery, against a real receiver over HTTP: the routes'
// rules, the outbox written with each change (hot paths included), Standard Webhooks
// signatures, the retry schedule, giving up after 24 hours and disabling after 3 days.
import { Webhook } from 'standardwebhooks'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ATTEMPT_TIMEOUT_MS, type DeliveryWorker, startDeliveryWorker } from '../../src/domain/webhooks/worker.ts'
import { webhookPresence } from '../../src/domain/webhooks/presence.ts'
import { createCompany, createTask, hireAgent } from '../fixtures.ts'
import { openPostgres } from '../../src/server/db/postgres.ts'
import { call, createUser, type TestUser } from '../helpers.ts'
import { privateApp, waitFor } from '../scheduler/setup.ts'
import { type Receiver, startReceiver } from './receiver.ts'

let t: Awaited<ReturnType<typeof privateApp>>
let receiver: Receiver
let worker: DeliveryWorker | null = null
/** Delivery tests get a receiver of their own, so deliveries of other tests never reach it. */
let own: Receiver | null = null
beforeAll(async () => {
  t = await privateApp()
  t.ctx.config.webhooksAllowPrivate = true
  receiver = await startReceiver()
})
afterEach(async () => {
  await worker?.stop()
  worker = null
  await own?.close()
  own = null
})
afterAll(async () => {
  await receiver?.close()
  await t?.close()
})

async function company(): Promise<{ owner: TestUser; id: string; base: string }> {
  const owner = await createUser(t.ctx, 'Owner')
  const c = await createCompany(t.app, owner.token, { task_prefix: 'HOOK' })
  return { owner, id: c.id, base: `/api/companies/${c.id}` }
}

async function subscribe(base: string, token: string, body: Record<string, unknown> = {}) {
  const r = await call(t.app, 'POST', `${base}/webhooks`, { token, body: { url: receiver.url, ...body } })
  expect(r.status, JSON.stringify(r.body)).toBe(201)
  return r.body
}

const deliveries = (webhookId: string) =>
  t.ctx.db.many('SELECT * FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY seq', [webhookId])

describe('subscriptions', () => {
  it('owner creates one, the secret is answered once, and an admin may manage it, a member may not', async () => {
    const c = await company()
    const hook = await subscribe(c.base, c.owner.token, { events: ['task.*'], description: 'CI' })
    expect(hook).toMatchObject({ url: receiver.url, events: ['task.*'], enabled: true, description: 'CI', disabled_reason: null })
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/)

    const list = await call(t.app, 'GET', `${c.base}/webhooks`, { token: c.owner.token })
    expect(list.status).toBe(200)
    expect(list.body).toHaveLength(1)
    expect(list.body[0].secret).toBeUndefined()
    const one = await call(t.app, 'GET', `${c.base}/webhooks/${hook.id}`, { token: c.owner.token })
    expect(one.body.secret).toBeUndefined()

    const member = await createUser(t.ctx, 'Member')
    const admin = await createUser(t.ctx, 'Admin')
    await t.ctx.db.query(`INSERT INTO memberships (company_id, user_id, role) VALUES ($1, $2, 'member'), ($1, $3, 'admin')`, [c.id, member.id, admin.id])
    for (const [method, url] of [['GET', '/webhooks'], ['POST', '/webhooks'], ['PATCH', `/webhooks/${hook.id}`], ['DELETE', `/webhooks/${hook.id}`], ['GET', `/webhooks/${hook.id}/deliveries`]] as const) {
      const r = await call(t.app, method, c.base + url, { token: member.token, body: method === 'POST' || method === 'PATCH' ? { url: receiver.url } : undefined })
      expect(r.status, `${method} ${url}`).toBe(403)
      expect(r.body.error.code).toBe('FORBIDDEN')
    }
    const patched = await call(t.app, 'PATCH', `${c.base}/webhooks/${hook.id}`, { token: admin.token, body: { enabled: false, events: ['run.updated', 'agent.*'] } })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ enabled: false, events: ['run.updated', 'agent.*'] })
    const audit = await t.ctx.db.many(`SELECT verb FROM audit_events WHERE entity_id = $1 ORDER BY created_at`, [hook.id])
    expect(audit.map((a) => a.verb)).toEqual(['created', 'updated'])

    expect((await call(t.app, 'DELETE', `${c.base}/webhooks/${hook.id}`, { token: admin.token })).status).toBe(204)
    expect((await call(t.app, 'GET', `${c.base}/webhooks/${hook.id}`, { token: admin.token })).status).toBe(404)
  })

  it('refuses loopback and private targets unless WEBHOOKS_ALLOW_PRIVATE, bad patterns and unknown fields', async () => {
    const c = await company()
    t.ctx.config.webhooksAllowPrivate = false
    try {
      for (const url of ['http://127.0.0.1:9/x', 'http://localhost/x', 'http://10.1.2.3/', 'http://192.168.0.1/', 'http://[::1]/', 'http://169.254.169.254/latest',
        'http://[::127.0.0.1]/', 'http://[2002:7f00:1::]/', 'http://[64:ff9b:1::a00:1]/', 'http://[fec0::1]/']) {
        const r = await call(t.app, 'POST', `${c.base}/webhooks`, { token: c.owner.token, body: { url } })
        expect(r.status, url).toBe(422)
        expect(r.body.error.code).toBe('VALIDATION_ERROR')
        expect(r.body.error.message).toMatch(/loopback or private/)
      }
    } finally {
      t.ctx.config.webhooksAllowPrivate = true
    }
    const bad = [
      [{ url: 'ftp://example.com/' }, /http or https/],
      [{ url: receiver.url, events: ['tasks.*'] }, /^events\.0: Unknown event pattern "tasks\.\*"/],
      [{ url: receiver.url, events: [] }, /at least 1/],
      [{ url: receiver.url, secret: 'mine' }, /Extra inputs/],
    ] as const
    for (const [body, message] of bad) {
      const r = await call(t.app, 'POST', `${c.base}/webhooks`, { token: c.owner.token, body })
      expect(r.status, JSON.stringify(body)).toBe(422)
      expect(`${r.body.error.message} ${JSON.stringify(r.body.error.details)}`).toMatch(message)
    }
    expect(await t.ctx.db.many('SELECT 1 FROM webhooks WHERE company_id = $1', [c.id])).toHaveLength(0)
  })

  it('another company cannot see or change them', async () => {
    const a = await company()
    const b = await company()
    const hook = await subscribe(a.base, a.owner.token)
    expect((await call(t.app, 'GET', `${b.base}/webhooks/${hook.id}`, { token: b.owner.token })).status).toBe(404)
    expect((await call(t.app, 'DELETE', `${b.base}/webhooks/${hook.id}`, { token: b.owner.token })).status).toBe(404)
    expect((await call(t.app, 'GET', `${a.base}/webhooks`, { token: b.owner.token })).status).toBe(404)
  })
})

describe('the outbox', () => {
  it('every published change of a subscribed company writes its deliveries, hot paths included, with the record in data', async () => {
    const c = await company()
    const hook = await subscribe(c.base, c.owner.token, { events: ['task.*', 'run.*', 'agent.created'] })
    const agent = await hireAgent(t.app, c.owner.token, c.id, { name: 'Builder', adapter: 'simulated' })
    const task = await createTask(t.app, c.owner.token, c.id, { title: 'Ship it', assignee_agent_id: agent.id })
    const claim = await call(t.app, 'POST', `${c.base}/runs/claim`, { token: c.owner.token, body: { runner_id: 'r1' } })
    expect(claim.status, JSON.stringify(claim.body)).toBe(200)
    // The agent's run credential reads the company, but not where its data goes.
    expect(claim.body.run_token).toBeTruthy()
    const asAgent = await call(t.app, 'GET', `${c.base}/webhooks`, { token: claim.body.run_token })
    expect(asAgent.status).toBe(403)
    expect(asAgent.body.error.code).toBe('FORBIDDEN')
    const report = await call(t.app, 'PATCH', `${c.base}/runs/${claim.body.run.id}`, { token: c.owner.token, body: { runner_id: 'r1', transcript: [{ text: 'working' }] } })
    expect(report.status, JSON.stringify(report.body)).toBe(200)
    const done = await call(t.app, 'PATCH', `${c.base}/runs/${claim.body.run.id}`, { token: c.owner.token, body: { runner_id: 'r1', status: 'succeeded', summary: 'shipped' } })
    expect(done.status).toBe(200)
    expect((await call(t.app, 'DELETE', `${c.base}/tasks/${task.id}`, { token: c.owner.token })).status).toBe(204)

    const rows = await deliveries(hook.id)
    expect(rows.map((r) => r.type)).toEqual([
      'agent.created', 'task.created', 'run.created', // hire; task create (one statement) with its assignment run
      'task.updated', 'run.updated', // claim (one statement): task started, run running (agent.updated not subscribed)
      'run.updated', // progress report (one statement)
      'run.updated', // finishing report (one statement)
      'task.deleted',
    ])
    for (const r of rows) {
      expect(r.status).toBe('pending')
      expect(r.payload).toMatchObject({ id: r.event_id, type: r.type, company_id: c.id })
      expect(r.payload.created_at).toMatch(/^\d{4}-\d\d-\d\dT/)
    }
    expect(rows[0].payload.data).toMatchObject({ id: agent.id, name: 'Builder' })
    expect(rows[1].payload.data).toMatchObject({ id: task.id, key: task.key, title: 'Ship it', status: 'todo' })
    expect(rows[3].payload.data).toMatchObject({ id: task.id, status: 'in_progress' })
    expect(rows[4].payload.data).toMatchObject({ id: claim.body.run.id, status: 'running', runner_id: 'r1' })
    expect(rows[4].payload.data.transcript).toBeUndefined()
    expect(rows[6].payload.data).toMatchObject({ status: 'succeeded', summary: 'shipped' })
    expect(rows[7].payload.data).toEqual({ id: task.id })
  })

  it('each matching subscription gets its own delivery of one event, disabled ones none; a failed write none', async () => {
    const c = await company()
    const all = await subscribe(c.base, c.owner.token)
    const goals = await subscribe(c.base, c.owner.token, { events: ['goal.created'] })
    const off = await subscribe(c.base, c.owner.token, { enabled: false })
    const goal = await call(t.app, 'POST', `${c.base}/goals`, { token: c.owner.token, body: { title: 'Grow' } })
    expect(goal.status).toBe(201)
    const a = await deliveries(all.id)
    const g = await deliveries(goals.id)
    expect(a.map((r) => r.type)).toEqual(['goal.created'])
    expect(g.map((r) => r.event_id)).toEqual([a[0].event_id])
    expect(await deliveries(off.id)).toHaveLength(0)

    const refused = await call(t.app, 'POST', `${c.base}/goals`, { token: c.owner.token, body: { title: 'Bad', parent_id: crypto.randomUUID() } })
    expect(refused.status).toBe(404)
    expect(await deliveries(all.id)).toHaveLength(1)
  })

  it('a company without subscriptions is remembered and then writes no outbox statement', async () => {
    const c = await company()
    await createTask(t.app, c.owner.token, c.id)
    expect(webhookPresence(t.ctx.db).knownAbsent(c.id)).toBe(true)
    // Subscribing makes every process forget (NOTIFY from the trigger), and the next write delivers.
    await subscribe(c.base, c.owner.token)
    await waitFor(async () => !webhookPresence(t.ctx.db).knownAbsent(c.id))
    await createTask(t.app, c.owner.token, c.id)
    expect(await t.ctx.db.many('SELECT 1 FROM webhook_deliveries WHERE company_id = $1', [c.id])).toHaveLength(1)
  })
})

describe('delivery', () => {
  beforeEach(async () => {
    own = receiver = await startReceiver()
  })

  it('signs per Standard Webhooks, retries a failure about 5 s later with the same webhook-id, then delivers', async () => {
    const c = await company()
    const hook = await subscribe(c.base, c.owner.token, { events: ['task.created'] })
    receiver.received.length = 0
    receiver.answer = 503
    // Its own pace (a look every 30 s at the least): the write wakes it, and it wakes itself when the retry is due.
    worker = startDeliveryWorker(t.ctx)
    const task = await createTask(t.app, c.owner.token, c.id, { title: 'Signed' })
    await waitFor(async () => receiver.received.length >= 1)
    receiver.answer = 200
    const [row] = await waitFor(async () => {
      const rows = await deliveries(hook.id)
      return rows[0]?.status === 'delivered' && rows
    }, 15_000)
    expect(receiver.received).toHaveLength(2)
    const [first, second] = receiver.received
    expect(second.at - first.at).toBeGreaterThanOrEqual(4500)
    expect(second.at - first.at).toBeLessThan(8000)
    for (const got of receiver.received) {
      expect(got.headers['webhook-id']).toBe(row.event_id)
      const verified = new Webhook(hook.secret).verify(got.body, got.headers) as any
      expect(verified).toMatchObject({ id: row.event_id, type: 'task.created', company_id: c.id, data: { id: task.id, title: 'Signed' } })
    }
    expect(() => new Webhook(`whsec_${Buffer.from('another secret of 24 byte').toString('base64')}`).verify(first.body, first.headers)).toThrow()

    const log = await call(t.app, 'GET', `${c.base}/webhooks/${hook.id}/deliveries`, { token: c.owner.token })
    expect(log.status).toBe(200)
    expect(log.body[0]).toMatchObject({ id: row.id, event_id: row.event_id, type: 'task.created', status: 'delivered', attempts: 2, last_status_code: 200, last_error: null, next_attempt_at: null })
    expect(log.body[0].delivered_at).toBeTruthy()
    expect(new Date(log.body[0].last_attempt_at).getTime()).toBe(new Date(row.last_attempt_at).getTime())
  })

  it('spaces retries 5 s, 1 min, 5 min, 30 min, 2 h, then 4 h, gives up after 24 h, and a retry sends it again', async () => {
    const c = await company()
    const hook = await subscribe(c.base, c.owner.token, { events: ['goal.created'] })
    receiver.answer = 500
    worker = startDeliveryWorker(t.ctx, { pollMs: 100 })
    await call(t.app, 'POST', `${c.base}/goals`, { token: c.owner.token, body: { title: 'G' } })
    const spacing = async (attempts: number) => {
      const row = await waitFor(async () => {
        const [r] = await deliveries(hook.id)
        return r.attempts === attempts && r.leased_until === null && r
      }, 10_000)
      return (Date.parse(row.next_attempt_at) - Date.parse(row.last_attempt_at)) / 1000
    }
    const delays: number[] = []
    for (let attempts = 1; attempts <= 7; attempts++) {
      delays.push(Math.round(await spacing(attempts)))
      // Bring the next attempt forward instead of waiting for it.
      await t.ctx.db.query('UPDATE webhook_deliveries SET next_attempt_at = now() WHERE webhook_id = $1', [hook.id])
    }
    // Each from the attempt's start to the next attempt, so the attempt's own length (a second
    // or more on a loaded machine) may add to it.
    const schedule = [5, 60, 300, 1800, 7200, 14400, 14400]
    delays.forEach((delay, i) => expect(delay - schedule[i], `delay ${i + 1}: ${delays.join(', ')}`).toBeGreaterThanOrEqual(0))
    delays.forEach((delay, i) => expect(delay - schedule[i], `delay ${i + 1}: ${delays.join(', ')}`).toBeLessThanOrEqual(2))
    const [pending] = await deliveries(hook.id)
    expect(pending).toMatchObject({ status: 'pending', last_status_code: 500, last_error: 'HTTP 500' })

    // 24 hours after it was made, a failure is final.
    await t.ctx.db.query(`UPDATE webhook_deliveries SET retry_window_from = now() - interval '23 hours' WHERE webhook_id = $1`, [hook.id])
    await waitFor(async () => (await deliveries(hook.id))[0].status === 'failed', 10_000)
    const log = await call(t.app, 'GET', `${c.base}/webhooks/${hook.id}/deliveries`, { token: c.owner.token })
    expect(log.body[0]).toMatchObject({ status: 'failed', attempts: 8, next_attempt_at: null })

    receiver.answer = 200
    const retried = await call(t.app, 'POST', `${c.base}/webhooks/${hook.id}/deliveries/${log.body[0].id}/retry`, { token: c.owner.token })
    expect(retried.status).toBe(202)
    expect(retried.body.status).toBe('pending')
    await waitFor(async () => (await deliveries(hook.id))[0].status === 'delivered', 10_000)
    const missing = await call(t.app, 'POST', `${c.base}/webhooks/${hook.id}/deliveries/${crypto.randomUUID()}/retry`, { token: c.owner.token })
    expect(missing.status).toBe(404)
  })

  it('a subscription failing for 3 days is disabled and says why; deliveries wait until it is enabled again', async () => {
    const c = await company()
    const hook = await subscribe(c.base, c.owner.token, { events: ['goal.created'] })
    await t.ctx.db.query(`UPDATE webhooks SET failing_since = now() - interval '3 days 1 minute' WHERE id = $1`, [hook.id])
    receiver.answer = 500
    worker = startDeliveryWorker(t.ctx, { pollMs: 100 })
    await call(t.app, 'POST', `${c.base}/goals`, { token: c.owner.token, body: { title: 'G' } })
    const got = await waitFor(async () => {
      const r = await call(t.app, 'GET', `${c.base}/webhooks/${hook.id}`, { token: c.owner.token })
      return r.body.enabled === false && r.body
    }, 10_000)
    expect(got.disabled_reason).toMatch(/^Disabled after 3 days of failed deliveries \(last: HTTP 500\)/)
    // Disabled: new events are not queued for it.
    await call(t.app, 'POST', `${c.base}/goals`, { token: c.owner.token, body: { title: 'H' } })
    expect(await deliveries(hook.id)).toHaveLength(1)

    receiver.answer = 200
    await t.ctx.db.query('UPDATE webhook_deliveries SET next_attempt_at = now() WHERE webhook_id = $1', [hook.id])
    const enabled = await call(t.app, 'PATCH', `${c.base}/webhooks/${hook.id}`, { token: c.owner.token, body: { enabled: true } })
    expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null })
    await waitFor(async () => (await deliveries(hook.id))[0].status === 'delivered', 10_000)
    const row = await t.ctx.db.one('SELECT failing_since FROM webhooks WHERE id = $1', [hook.id])
    expect(row!.failing_since).toBeNull()
  })

  it('checks the address on the connection it makes: a name that answered a public address when saved and 127.0.0.1 now gets nothing', async () => {
    const c = await company()
    const port = new URL(receiver.url).port
    let lookups = 0
    // DNS rebinding: the first answer (the check when the subscription is saved) is public, every
    // later one (the delivery's connection) is loopback.
    t.ctx.resolve = async () => (++lookups === 1 ? [{ address: '93.184.215.14', family: 4 }] : [{ address: '127.0.0.1', family: 4 }])
    t.ctx.config.webhooksAllowPrivate = false
    try {
      const hook = await subscribe(c.base, c.owner.token, { url: `http://rebind.test:${port}/hook`, events: ['goal.created'] })
      worker = startDeliveryWorker(t.ctx, { pollMs: 100 })
      await call(t.app, 'POST', `${c.base}/goals`, { token: c.owner.token, body: { title: 'Rebound' } })
      const row = await waitFor(async () => {
        const [r] = await deliveries(hook.id)
        return r?.last_error && r
      }, 10_000)
      expect(row.last_error).toBe('rebind.test (127.0.0.1) is a loopback or private address, which is refused; set WEBHOOKS_ALLOW_PRIVATE=true to allow it')
      expect(row.status).toBe('pending')
      expect(lookups).toBeGreaterThanOrEqual(2)
      expect(receiver.received).toHaveLength(0)
    } finally {
      t.ctx.resolve = undefined
      t.ctx.config.webhooksAllowPrivate = true
    }
  })

  it('a receiver that never answers fails the attempt after the attempt timeout, 15 s unless a test shortens it', async () => {
    expect(ATTEMPT_TIMEOUT_MS).toBe(15_000)
    const c = await company()
    const hook = await subscribe(c.base, c.owner.token, { events: ['goal.created'] })
    receiver.answer = 'hang'
    // 1.5 s instead of 15: the same path (the request aborted, the attempt failed and rescheduled).
    worker = startDeliveryWorker(t.ctx, { pollMs: 100, attemptTimeoutMs: 1500 })
    const posted = Date.now()
    await call(t.app, 'POST', `${c.base}/goals`, { token: c.owner.token, body: { title: 'Slow' } })
    const row = await waitFor(async () => {
      const [r] = await deliveries(hook.id)
      return r?.last_error && r
    }, 10_000)
    expect(Date.now() - posted).toBeGreaterThanOrEqual(1500)
    expect(row.last_error).toBe('No answer within 1.5 s')
    expect(row.status).toBe('pending')
    receiver.answer = 200
  })

  it('a delivery queued by another process is sent at once, not at the next look 30 s later', async () => {
    const c = await company()
    const hook = await subscribe(c.base, c.owner.token, { events: ['goal.created'] })
    // Earlier tests' deliveries still pending (retries hours away) are set aside, so that nothing
    // due wakes the worker but the notification.
    await t.ctx.db.query(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE status = 'pending'`)
    worker = startDeliveryWorker(t.ctx)
    await new Promise((r) => setTimeout(r, 500)) // it has looked, found nothing and waits
    // Queued as another process's outbox would: through a connection of its own on PostgreSQL,
    // which wakes no worker of this process but through the notification.
    const other = t.url ? openPostgres(t.url, undefined, 1) : t.ctx.db
    const queuedAt = Date.now()
    try {
      await other.query(
        `INSERT INTO webhook_deliveries (webhook_id, company_id, event_id, type, payload, next_attempt_at)
         VALUES ($1, $2, 'evt_from_elsewhere', 'goal.created', '{"id": "evt_from_elsewhere", "type": "goal.created"}', now())`,
        [hook.id, c.id],
      )
    } finally {
      if (other !== t.ctx.db) await other.close()
    }
    // The worker records the delivery after the receiver has answered, so wait for the record too.
    await waitFor(async () => (await deliveries(hook.id)).some((d: any) => d.event_id === 'evt_from_elsewhere' && d.status === 'delivered'), 10_000)
    const got = receiver.received.find((r) => r.headers['webhook-id'] === 'evt_from_elsewhere')
    expect(got!.at - queuedAt).toBeLessThan(5_000)
    expect((await deliveries(hook.id)).find((d: any) => d.event_id === 'evt_from_elsewhere')).toMatchObject({ status: 'delivered', attempts: 1 })
  })

  it('two instances share the deliveries: each is sent exactly once while the receiver answers', async () => {
    const c = await company()
    const hooks = [await subscribe(c.base, c.owner.token, { events: ['goal.created'] }), await subscribe(c.base, c.owner.token, { events: ['goal.created'] })]
    for (let i = 0; i < 40; i++) {
      expect((await call(t.app, 'POST', `${c.base}/goals`, { token: c.owner.token, body: { title: `Goal ${i}` } })).status).toBe(201)
    }
    // A second instance: its own connection pool on the same database (PostgreSQL), as a second process would have.
    const secondDb = t.url ? openPostgres(t.url, undefined, 10) : t.ctx.db
    const workers = [startDeliveryWorker(t.ctx, { pollMs: 50, batch: 5 }), startDeliveryWorker({ ...t.ctx, db: secondDb }, { pollMs: 50, batch: 5 })]
    try {
      await waitFor(async () => {
        const n = await t.ctx.db.one(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = ANY($1) AND status = 'delivered'`, [hooks.map((h) => h.id)])
        return n!.n === 80
      }, 20_000)
    } finally {
      await Promise.all(workers.map((w) => w.stop()))
      if (secondDb !== t.ctx.db) await secondDb.close()
    }
    expect(receiver.received).toHaveLength(80) // 40 events x 2 subscriptions, none twice
    const perDelivery = receiver.received.map((r) => {
      const matching = hooks.filter((h) => {
        try {
          new Webhook(h.secret).verify(r.body, r.headers)
          return true
        } catch {
          return false
        }
      })
      expect(matching).toHaveLength(1)
      return `${matching[0].id} ${r.headers['webhook-id']}`
    })
    expect(new Set(perDelivery).size).toBe(80)
  }, 40_000)
})
