// GET /metrics of a real server process, scraped while a workload runs, and X-Request-Id on
// every answer and every log line of its request.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { makeWorkspace, startTestServer, type TestServer, type Workspace } from '../runner/harness.ts'

let server: TestServer
let w: Workspace
const TOKEN = 'metrics-secret-token'
beforeAll(async () => {
  server = await startTestServer({ METRICS_TOKEN: TOKEN, LOG_LEVEL: 'info' })
  w = await makeWorkspace(server.url)
})
afterAll(async () => {
  await server?.close()
})

const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/api/companies/${w.companyId}${path}`, {
    method,
    headers: { authorization: `Bearer ${w.accessToken}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

const scrape = async () => {
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
  return res.text()
}

/** The value of one series, by name and exact labels (in the order prom-client prints them). */
function value(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line ? Number(line.slice(series.length + 1)) : null
}

it('needs the METRICS_TOKEN bearer when one is set', async () => {
  for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: `Basic ${TOKEN}` }] as Record<string, string>[]) {
    const res = await fetch(`${server.url}/metrics`, { headers })
    expect(res.status).toBe(401)
    expect((await res.json()).error.code).toBe('AUTH_REQUIRED')
  }
})

it('counts requests by route template, runs, claims and more during a workload', async () => {
  const agent = await (await api('POST', '/agents', { name: 'Worker', adapter: 'simulated' })).json()
  const empty = await api('POST', '/runs/claim', { runner_id: 'metrics-runner' })
  expect(empty.status).toBe(204)
  // The workload: tasks made and read in parallel while the metrics are scraped.
  const work = Promise.all(Array.from({ length: 30 }, async (_, i) => {
    const created = await api('POST', '/tasks', { title: `Load ${i}`, assignee_agent_id: agent.id })
    expect(created.status).toBe(201)
    const task = await created.json()
    expect((await api('GET', `/tasks/${task.id}`)).status).toBe(200)
  }))
  const during = await scrape()
  await work
  expect(during).toContain('shopfloor_http_requests_total')
  await new Promise((r) => setTimeout(r, 1100)) // the oldest queued run gets an age of at least a second
  const claimed = await api('POST', '/runs/claim', { runner_id: 'metrics-runner' })
  expect(claimed.status).toBe(200)
  expect((await api('GET', `/tasks/${crypto.randomUUID()}`)).status).toBe(404)
  expect((await fetch(`${server.url}/no/such/path/${crypto.randomUUID()}`, { headers: { accept: 'application/json' } })).status).toBeGreaterThanOrEqual(400)

  const text = await scrape()
  expect(value(text, 'shopfloor_http_requests_total{method="POST",route="/api/companies/:company_id/tasks",status="201"}')).toBe(30)
  expect(value(text, 'shopfloor_http_requests_total{method="GET",route="/api/companies/:company_id/tasks/:task_ref",status="200"}')).toBe(30)
  expect(value(text, 'shopfloor_http_requests_total{method="GET",route="/api/companies/:company_id/tasks/:task_ref",status="404"}')).toBe(1)
  expect(value(text, 'shopfloor_http_request_duration_seconds_count{method="POST",route="/api/companies/:company_id/tasks"}')).toBe(30)
  // Never a raw path: no id appears in any label.
  expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/)
  expect(value(text, 'shopfloor_run_claims_total{result="empty"}')).toBe(1)
  expect(value(text, 'shopfloor_run_claims_total{result="claimed"}')).toBe(1)
  expect(value(text, 'shopfloor_runs{status="running"}')).toBe(1)
  expect(value(text, 'shopfloor_runs{status="queued"}')).toBe(29)
  expect(value(text, 'shopfloor_oldest_queued_run_age_seconds')).toBeGreaterThanOrEqual(1)
  expect(value(text, 'shopfloor_event_publish_failures_total')).toBe(0)
  expect(value(text, 'shopfloor_event_streams')).toBe(0)
  expect(value(text, 'shopfloor_webhook_deliveries_pending')).toBe(0)
  expect(value(text, 'shopfloor_process_resident_memory_bytes')).toBeGreaterThan(0)
  expect(text).toContain('shopfloor_nodejs_eventloop_lag_seconds')
  if (server.env.DATABASE_URL) expect(value(text, 'shopfloor_db_pool_connections{state="waiting"}')).toBe(0)
  for (const name of ['shopfloor_run_lease_expiries_total', 'shopfloor_scheduler_slots_total', 'shopfloor_webhook_deliveries_total']) {
    expect(text).toContain(`# TYPE ${name}`)
  }
})

it('counts open event streams', async () => {
  const controller = new AbortController()
  const stream = await fetch(`${server.url}/api/companies/${w.companyId}/events`, {
    headers: { authorization: `Bearer ${w.accessToken}`, accept: 'text/event-stream' },
    signal: controller.signal,
  })
  expect(stream.status).toBe(200)
  try {
    expect(value(await scrape(), 'shopfloor_event_streams')).toBe(1)
  } finally {
    controller.abort()
  }
})

it('answers X-Request-Id on every response, keeps a sent one, and puts it on the log lines of the request', async () => {
  const fresh = await api('GET', '/tasks')
  expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  const other = await api('GET', '/tasks')
  expect(other.headers.get('x-request-id')).not.toBe(fresh.headers.get('x-request-id'))

  const mine = `trace-${Date.now()}`
  const kept = await api('GET', `/tasks/${crypto.randomUUID()}`, undefined, { 'x-request-id': mine })
  expect(kept.status).toBe(404)
  expect(kept.headers.get('x-request-id')).toBe(mine)
  // An unsafe value (spaces, too long) is replaced rather than written into logs.
  const unsafe = await api('GET', '/tasks', undefined, { 'x-request-id': 'a b\tc' })
  expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  const bad = await fetch(`${server.url}/api/companies/not-a-uuid/tasks`, { headers: { authorization: `Bearer ${w.accessToken}`, 'x-request-id': `${mine}-bad` } })
  expect(bad.status).toBe(422)
  expect(bad.headers.get('x-request-id')).toBe(`${mine}-bad`)
  const noAuth = await fetch(`${server.url}/metrics`)
  expect(noAuth.headers.get('x-request-id')).toBeTruthy()

  await new Promise((r) => setTimeout(r, 200))
  const lines = server.server.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l))
  const ofMine = lines.filter((l) => l.reqId === mine)
  expect(ofMine.map((l) => l.msg)).toEqual(expect.arrayContaining(['incoming request', 'request completed']))
  expect(ofMine.find((l) => l.msg === 'request completed').res.statusCode).toBe(404)
  for (const line of lines.filter((l) => l.req || l.res)) expect(line.reqId).toBeTruthy()
})
