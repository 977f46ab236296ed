// A large company's document, over a socket: more than the 10 MiB other requests may send and
// more records than one statement writes, imported whole; one import at a time, and one whose
// caller has gone does not hold the others up. Other requests keep the 8 MiB limit.
import { afterAll, beforeAll, expect, it } from 'vitest'
import { IMPORT_MAX_TASKS } from '../../src/contract/company-export.ts'
import net from 'node:net'
import { createUser, type TestApp, testApp, type TestUser, waitFor } from '../helpers.ts'

let api: TestApp
let url: string
let owner: TestUser
beforeAll(async () => {
  api = await testApp()
  url = await api.app.listen({ host: '127.0.0.1', port: 0 })
  owner = await createUser(api.ctx, 'Importer')
})
afterAll(async () => {
  await api?.close()
})

const DESCRIPTION = 'Reconcile the refunds of the billing export with the ledger, line by line, and say which differ. '.repeat(2)

/** A document of `tasks` tasks (each 10th with a comment, each 3rd a sub-task of the one before), over 10 MiB from 40,000. */
function document(name: string, tasks: number) {
  return {
    format: 'shopfloor.company', version: 1, company: { name, task_prefix: 'BIG' },
    agents: [{ id: 'a', name: 'Ada' }],
    tasks: Array.from({ length: tasks }, (_, i) => ({
      id: `t${i}`, number: i + 1, title: `Task ${i + 1}`, description: DESCRIPTION, assignee_agent_id: i % 2 ? 'a' : null,
      parent_id: i % 3 === 2 ? `t${i - 1}` : null, comments: i % 10 ? [] : [{ id: `c${i}`, body: `Comment on ${i + 1}` }],
    })),
  }
}

function post(path: string, body: unknown, signal?: AbortSignal) {
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  return fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}` }, body: text, signal })
}

/**
 * An import over a socket of its own, its head and the start of its body sent, that holds the
 * import turn: a probe import sent after it was refused (429). Should the probe have come first
 * and been taken, this one was refused: it is sent again.
 */
async function holdingTheTurn(body: string) {
  for (let attempt = 1; ; attempt++) {
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    let received = ''
    socket.setEncoding('utf8')
    socket.on('data', (data) => { received += data })
    socket.write(`POST /api/companies/import HTTP/1.1\r\nhost: shopfloor\r\ncontent-type: application/json\r\n` +
      `authorization: Bearer ${owner.token}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 1000)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
    const probeName = `Probe ${attempt}`
    const probe = await post('/api/companies/import', document(probeName, 1))
    if (probe.status === 429 && received === '') {
      return {
        socket, probe, probeName,
        /** Sends the rest of the body and waits for the answer. */
        async finish(timeoutMs: number) {
          socket.write(body.slice(1000))
          return waitFor(() => {
            const end = received.indexOf('\r\n\r\n')
            if (end < 0) return null
            const length = Number(/content-length: (\d+)/i.exec(received.slice(0, end))?.[1] ?? 0)
            if (received.length < end + 4 + length) return null
            return { status: Number(received.slice(9, 12)), body: JSON.parse(received.slice(end + 4, end + 4 + length)) }
          }, timeoutMs)
        },
      }
    }
    socket.destroy()
    if (attempt === 20) throw new Error('the import never held the turn')
  }
}

it('imports a document of more than 10 MiB whole; another import meanwhile is refused unread (429) and nothing of it kept', async () => {
  // More tasks than the 50,000 of every other list of a document.
  const big = JSON.stringify(document('Large', 50_001))
  expect(big.length).toBeGreaterThan(10 * 1024 * 1024)
  const held = await holdingTheTurn(big)
  // Refused while the large one is under way, unread, and nothing of it kept.
  expect(held.probe.headers.get('retry-after')).toBe('5')
  expect((await held.probe.json()).error).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/Another company import of yours is under way/) })
  const large = await held.finish(120_000)
  held.socket.destroy()
  expect(large.status).toBe(201)
  expect((await post('/api/companies/import', document('After', 3))).status).toBe(201)
  expect((await api.ctx.db.one<{ n: number }>('SELECT count(*)::int AS n FROM companies WHERE name = $1', [held.probeName]))!.n).toBe(0)

  const company = large.body.id
  const db = api.ctx.db
  const counts = await db.one<{ tasks: number; top: string; sub: number; comments: number; audits: number; last: number }>(
    `SELECT (SELECT count(*)::int FROM tasks WHERE company_id = $1) AS tasks,
            (SELECT max(number)::text FROM tasks WHERE company_id = $1) AS top,
            (SELECT count(*)::int FROM tasks WHERE company_id = $1 AND parent_id IS NOT NULL) AS sub,
            (SELECT count(*)::int FROM task_comments WHERE company_id = $1) AS comments,
            (SELECT count(*)::int FROM audit_events WHERE company_id = $1 AND verb = 'created') AS audits,
            (SELECT last_task_number FROM companies WHERE id = $1) AS last`,
    [company],
  )
  // Every record written (the company, 1 agent, 50,001 tasks, 5,001 comments), each with its audit event.
  expect(counts).toEqual({ tasks: 50_001, top: '50001', sub: 16_667, comments: 5_001, audits: 1 + 1 + 50_001 + 5_001, last: 50_001 })
  // A sub-task past the first statement's records points at the task before it.
  const sub = await db.one<{ parent: number }>(
    `SELECT p.number AS parent FROM tasks t JOIN tasks p ON p.id = t.parent_id WHERE t.company_id = $1 AND t.number = 49998`, [company])
  expect(sub!.parent).toBe(49_997)
  // Each task assigned to Ada (every other) has its assignment run, counted once.
  const runs = await db.one<{ queued: number; totalled: number }>(
    `SELECT (SELECT count(*)::int FROM runs WHERE company_id = $1 AND status = 'queued' AND trigger = 'assignment') AS queued,
            (SELECT coalesce(sum(runs), 0)::int FROM run_totals WHERE company_id = $1) AS totalled`, [company])
  expect(runs).toEqual({ queued: 25_000, totalled: 25_000 })
  // The dashboard counts them all.
  const dashboard = await (await fetch(`${url}/api/companies/${company}/dashboard`, { headers: { authorization: `Bearer ${owner.token}` } })).json()
  expect(Object.values(dashboard.tasks_by_status as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(50_001)
}, 120_000)

it(`refuses more than ${IMPORT_MAX_TASKS.toLocaleString('en')} tasks, naming the list, and keeps the 8 MiB limit elsewhere`, async () => {
  const tasks = Array.from({ length: IMPORT_MAX_TASKS + 1 }, (_, i) => ({ id: `${i}`, number: i + 1, title: 'x' }))
  const tooMany = await post('/api/companies/import', { format: 'shopfloor.company', version: 1, company: { name: 'Too many' }, tasks })
  expect(tooMany.status).toBe(422)
  const refusal = await tooMany.json()
  expect(refusal.error.code).toBe('VALIDATION_ERROR')
  expect(JSON.stringify(refusal.error)).toMatch(/tasks/)
  expect((await api.ctx.db.one<{ n: number }>("SELECT count(*)::int AS n FROM companies WHERE name = 'Too many'"))!.n).toBe(0)

  const created = await (await post('/api/companies', { name: 'Limits' })).json()
  const long = await post(`/api/companies/${created.id}/tasks`, { title: 'Long', description: 'x'.repeat(10 * 1024 * 1024) })
  expect(long.status).toBe(413)
  expect((await long.json()).error.code).toBe('PAYLOAD_TOO_LARGE')
}, 20_000)

it('takes the next import once a caller has gone in the middle of sending one', async () => {
  const held = await holdingTheTurn(JSON.stringify(document('Half', 2_000)))
  held.socket.destroy()
  // Its caller gone, the next import is taken.
  const next = await waitFor(async () => {
    const r = await post('/api/companies/import', document('Next', 1))
    return r.status === 429 ? null : r
  }, 5_000)
  expect(next.status).toBe(201)
  expect((await api.ctx.db.one<{ n: number }>("SELECT count(*)::int AS n FROM companies WHERE name = 'Half'"))!.n).toBe(0)
}, 30_000)
