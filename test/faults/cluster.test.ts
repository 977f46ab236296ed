// The scaled-out topology of docs/deploy.md, whole: three API instances behind HAProxy,
// PostgreSQL, Redis, the scheduler as its own process and two runners (test/faults/topology.ts).
// Under a write load and with live event streams open, it kills one API instance (kill -9) and
// starts it again, restarts the scheduler (a new one started before the old one stops, so both
// run for a moment), and kills a runner in the middle of a run. Then: every acknowledged write
// is there, every event stream came back, each routine slot fired once, and the orphaned run was
// failed by its lease and done again by the other runner, queued again by the server itself.
// The figures go to the test's output.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { ShopfloorClient } from '../../src/client/index.ts'
import { openPostgres } from '../../src/server/db/postgres.ts'
import { hasPostgresBinaries } from './postgres-cluster.ts'
import { inEnvelope } from './support.ts'
import { makeWorkspace, type Workspace } from '../runner/harness.ts'
import { type Child, type Cluster, startCluster } from './topology.ts'

const LEASE_SECONDS = 3
const STREAMS = 6
const WRITERS = 6
const ROUTINE_SECONDS = 2
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function waitFor<T>(check: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check().catch(() => null)
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(100)
  }
}

let cluster: Cluster
let w: Workspace
let runners: Child[] = []
beforeAll(async () => {
  if (!hasPostgresBinaries()) throw new Error('PostgreSQL server binaries (initdb) are needed')
  // A routine every ROUTINE_SECONDS counts the slots fired through the restarts: below the default
  // minimum of a minute between two fires (MIN_SCHEDULE_SECONDS), a setting made for such a test.
  cluster = await startCluster({ env: { RUN_LEASE_SECONDS: String(LEASE_SECONDS), STALE_SWEEP_SECONDS: '1', MIN_SCHEDULE_SECONDS: '1' } })
  w = await makeWorkspace(cluster.url)
  // The process adapter's agent sleeps 6 s: long enough to be killed in the middle, beyond the lease.
  runners = await Promise.all(['runner-a', 'runner-b'].map((name) => cluster.startRunner(name, w.apiKey, w.companyId, ['--agent-command', 'sleep 6'])))
}, 120_000)
afterAll(async () => {
  await cluster?.stop()
})

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${cluster.url}/api/companies/${w.companyId}${path}`, {
    method,
    headers: { authorization: `Bearer ${w.accessToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null, text, envelope: text.startsWith('{') && inEnvelope(JSON.parse(text)) }
}

/** Writers creating tasks one after another through the proxy, each answer sorted. */
function writeLoad() {
  const acknowledged: string[] = []
  const unavailable: string[] = [] // 503 in the envelope: an instance starting or shutting down
  const proxyErrors: string[] = [] // the proxy's own 502/503/504: in flight on the killed instance
  const unexpected: string[] = []
  let dropped = 0
  let running = true
  let n = 0
  const writer = async () => {
    while (running) {
      try {
        const r = await api('POST', '/tasks', { title: `Cluster load ${++n}` })
        if (r.status === 201) acknowledged.push(r.body.id)
        else if (r.status === 503 && r.envelope) unavailable.push(r.text)
        else if ([502, 503, 504].includes(r.status) && !r.envelope) proxyErrors.push(`${r.status}`)
        else unexpected.push(`${r.status} ${r.text.slice(0, 200)}`)
      } catch {
        dropped++
        await sleep(50)
      }
    }
  }
  const all = Array.from({ length: WRITERS }, writer)
  return {
    async stop() {
      running = false
      await Promise.all(all)
      return { acknowledged, unavailable, proxyErrors, unexpected, dropped }
    },
  }
}

/** Live event streams through the proxy, as the web app follows them (its reconnection delays). */
function eventStreams() {
  const controller = new AbortController()
  const streams = Array.from({ length: STREAMS }, () => ({
    connections: 0,
    droppedAt: null as number | null,
    reconnectMs: [] as number[],
    taskIds: new Set<string>(),
  }))
  for (const stream of streams) {
    const client = new ShopfloorClient({ baseUrl: cluster.url, retry: false, credentials: { accessToken: w.accessToken } })
    void client.events(w.companyId, {
      signal: controller.signal,
      onConnected: () => {
        stream.connections++
        if (stream.droppedAt !== null) stream.reconnectMs.push(Date.now() - stream.droppedAt)
        stream.droppedAt = null
      },
      onDisconnected: () => {
        stream.droppedAt ??= Date.now()
      },
      onEvent: (event) => {
        if (event.type === 'task.created' && event.id) stream.taskIds.add(event.id)
      },
    }).catch(() => {})
  }
  return { streams, close: () => controller.abort() }
}

it('keeps every acknowledged write, reconnects every stream, fires each routine slot once and redoes an orphaned run', async () => {
  const db = openPostgres(cluster.databaseUrl, undefined, 2)
  try {
    const hire = async (body: object) => {
      const r = await api('POST', '/agents', body)
      expect(r.status).toBe(201)
      return r.body
    }
    const clerk = await hire({ name: 'Clerk', adapter: 'simulated' })
    const slow = await hire({ name: 'Slow', adapter: 'process' })
    const live = eventStreams()
    await waitFor(async () => live.streams.every((s) => s.connections === 1), 'every stream to connect')

    const routine = await api('POST', '/routines', { agent_id: clerk.id, title: 'Tick', cron: `*/${ROUTINE_SECONDS} * * * * *` })
    expect(routine.status).toBe(201)
    const routineStarted = Date.now()
    const load = writeLoad()
    await sleep(2_000)

    // 1. One API instance crashes under load and comes back.
    const killedAt = Date.now()
    await cluster.apis[0].kill()
    await sleep(2_000)
    await cluster.apis[0].start()
    const restartMs = Date.now() - killedAt

    // 2. The scheduler is restarted: the new one starts before the old one stops.
    await cluster.restartScheduler()

    // 3. A runner is killed in the middle of a run.
    const task = await api('POST', '/tasks', { title: 'Long job', assignee_agent_id: slow.id })
    expect(task.status).toBe(201)
    const orphan = await waitFor(async () => {
      const runs = await api('GET', `/runs?task_id=${task.body.id}`)
      return runs.body?.find((r: any) => r.status === 'running' && r.runner_id) ?? null
    }, 'the long run to be claimed')
    const holder = runners.find((r) => r.name === orphan.runner_id)!
    const survivor = runners.find((r) => r !== holder)!
    await holder.stop('SIGKILL')
    const failed = await waitFor(async () => {
      const r = await api('GET', `/runs/${orphan.id}`)
      return r.body?.status === 'failed' ? r.body : null
    }, 'the lease to run out', 30_000)
    expect(failed.error).toMatch(/lease/)
    const leaseFailedMs = Date.parse(failed.ended_at) - Date.parse(orphan.started_at)
    // Done again with no one's help: the lost run is queued again (runs/redo-lost.ts) and the
    // surviving runner takes it.
    const redone = await waitFor(async () => {
      const runs = await api('GET', `/runs?task_id=${task.body.id}`)
      return runs.body?.find((r: any) => r.id !== orphan.id && r.status === 'succeeded') ?? null
    }, 'the lost run to be done again', 30_000)
    expect(redone.runner_id).toBe(survivor.name)
    expect(redone.trigger).toBe('assignment')
    const redoneAfterMs = Date.parse(redone.ended_at) - Date.parse(failed.ended_at)

    const result = await load.stop()
    const routineSeconds = (Date.now() - routineStarted) / 1000
    await api('PATCH', `/routines/${routine.body.id}`, { enabled: false })

    // Every acknowledged write is there (read through the proxy), exactly once.
    expect(result.unexpected).toEqual([])
    expect(result.acknowledged.length).toBeGreaterThan(50)
    expect(new Set(result.acknowledged).size).toBe(result.acknowledged.length)
    const kept = await db.one<{ n: number }>('SELECT count(*)::int AS n FROM tasks WHERE id = ANY($1::uuid[])', [result.acknowledged])
    expect(kept!.n).toBe(result.acknowledged.length)

    // Every stream came back and hears what happens now.
    const last = await api('POST', '/tasks', { title: 'After the storm' })
    expect(last.status).toBe(201)
    await waitFor(async () => live.streams.every((s) => s.taskIds.has(last.body.id)), 'every stream to hear the last task', 20_000).catch((err) => {
      throw new Error(`${err.message}: ${JSON.stringify(live.streams.map((s) => ({ ...s, taskIds: s.taskIds.size, heardLast: s.taskIds.has(last.body.id) })))}`)
    })
    const reconnects = live.streams.flatMap((s) => s.reconnectMs)
    expect(reconnects.length).toBeGreaterThan(0) // the killed instance held some streams
    live.close()

    // Each routine slot fired once: no two of its tasks closer than half its period.
    const fired = await db.many<{ at: number }>(
      'SELECT extract(epoch FROM created_at)::float8 * 1000 AS at FROM tasks WHERE routine_id = $1 ORDER BY created_at', [routine.body.id])
    const doubles = fired.filter((f, i) => i > 0 && f.at - fired[i - 1].at < (ROUTINE_SECONDS * 1000) / 2).length
    expect(doubles).toBe(0)
    expect(fired.length).toBeGreaterThanOrEqual(Math.floor(routineSeconds / ROUTINE_SECONDS) - 2)

    console.log(JSON.stringify({
      writes_acknowledged: result.acknowledged.length,
      writes_kept: kept!.n,
      writes_refused_503_envelope: result.unavailable.length,
      proxy_errors_in_flight: result.proxyErrors.length,
      connection_errors: result.dropped,
      api_restart_ms: restartMs,
      streams: STREAMS,
      stream_reconnects: reconnects.length,
      reconnect_ms: { min: Math.min(...reconnects), max: Math.max(...reconnects) },
      routine_fires: fired.length,
      routine_slots_elapsed: Math.floor(routineSeconds / ROUTINE_SECONDS),
      double_fires: doubles,
      orphan_failed_after_ms: leaseFailedMs,
      orphan_redone_after_ms: redoneAfterMs,
      lease_seconds: LEASE_SECONDS,
    }))
  } finally {
    await db.close()
  }
}, 150_000)
