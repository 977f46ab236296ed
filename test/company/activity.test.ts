import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recordAudit } from '../../src/domain/audit/record.ts'
import { write } from '../../src/server/db/write.ts'
import { createCompany, createTask, hireAgent } from '../fixtures.ts'
import { call, createUser, type TestApp, type TestUser, testApp } from '../helpers.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

const page = (user: TestUser, companyId: string, query = '') =>
  call(t.app, 'GET', `/api/companies/${companyId}/activity${query}`, { token: user.token })

/** Walks the whole trail with `before` cursors of `size` rows, returning the ids in order. */
async function walk(user: TestUser, companyId: string, size: number): Promise<string[]> {
  const ids: string[] = []
  let before: string | null = null
  for (;;) {
    const r = await page(user, companyId, `?limit=${size}${before ? `&before=${encodeURIComponent(before)}` : ''}`)
    expect(r.status).toBe(200)
    ids.push(...r.body.map((e: any) => e.id))
    if (r.body.length < size) return ids
    before = r.body.at(-1).created_at
  }
}

async function allIds(companyId: string): Promise<string[]> {
  const rows = await t.ctx.db.many<{ id: string }>('SELECT id FROM audit_events WHERE company_id = $1 ORDER BY created_at DESC', [companyId])
  return rows.map((r) => r.id)
}

describe('GET /activity', () => {
  it('lists events newest first with actor, verb, entity, label, changes and run', async () => {
    const user = await createUser(t.ctx, 'Reader')
    const company = await createCompany(t.app, user.token, { name: 'Trail' })
    const task = await createTask(t.app, user.token, company.id, { title: 'T' })
    const r = await page(user, company.id)
    expect(r.status).toBe(200)
    expect(r.body).toHaveLength(2)
    expect(r.body[0]).toEqual({
      id: expect.any(String), actor_type: 'user', actor_name: 'Reader', actor_user_id: user.id, actor_agent_id: null,
      verb: 'created', entity_type: 'task', entity_id: task.id, label: `${task.key} T`, changes: expect.any(Object),
      run_id: null, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$/),
    })
    expect(r.body[1]).toMatchObject({ verb: 'created', entity_type: 'company', entity_id: company.id })
  })

  it('defaults to 50 rows, allows up to 200 and refuses other limits with 422', async () => {
    const user = await createUser(t.ctx)
    const company = await createCompany(t.app, user.token)
    await write(t.ctx, async (tx) => {
      for (let i = 0; i < 60; i++) {
        await recordAudit(tx, { companyId: company.id, actor: { type: 'system', name: 'system' }, verb: 'updated', entityType: 'company', entityId: company.id, label: `e${i}` })
      }
    })
    expect((await page(user, company.id)).body).toHaveLength(50)
    expect((await page(user, company.id, '?limit=200')).body).toHaveLength(61)
    for (const q of ['?limit=0', '?limit=201', '?before=yesterday']) expect((await page(user, company.id, q)).status, q).toBe(422)
    // A cursor without an offset is read as UTC.
    const all = (await page(user, company.id, '?limit=200')).body
    const utc = all[9].created_at.replace('+00:00', '')
    const rest = await page(user, company.id, `?limit=200&before=${encodeURIComponent(utc)}`)
    expect(rest.body.map((e: any) => e.id)).toEqual(all.slice(10).map((e: any) => e.id))
    const stranger = await createUser(t.ctx)
    expect((await page(stranger, company.id)).status).toBe(404)
  })

  it('pages without skipping or repeating events written in one transaction in the same instant', async () => {
    const user = await createUser(t.ctx)
    const company = await createCompany(t.app, user.token)
    await write(t.ctx, async (tx) => {
      // A newest event ahead of the clock: every event after it lands 1 µs after the previous
      // one, as when many are written within one clock tick.
      await tx.query(
        `INSERT INTO audit_events (company_id, actor_type, actor_name, verb, entity_type, created_at)
         VALUES ($1, 'system', 'system', 'updated', 'company', now() + interval '1 minute')`,
        [company.id],
      )
      for (let i = 0; i < 150; i++) {
        await recordAudit(tx, { companyId: company.id, actor: { type: 'system', name: 'system' }, verb: 'updated', entityType: 'company', entityId: company.id, label: `e${i}` })
      }
    })
    const expected = await allIds(company.id)
    expect(expected).toHaveLength(152)
    const stamps = await t.ctx.db.many<{ gap: number }>(
      `SELECT extract(epoch FROM created_at - lag(created_at) OVER (ORDER BY created_at)) * 1e6 AS gap
         FROM audit_events WHERE company_id = $1 ORDER BY created_at DESC LIMIT 150`,
      [company.id],
    )
    expect(stamps.every((s) => Math.round(s.gap) === 1)).toBe(true)
    for (const size of [1, 7, 50]) {
      const ids = await walk(user, company.id, size)
      expect(ids).toEqual(expected)
    }
  })

  it('writes the events of concurrent writes whole and in order when their instants collide', async () => {
    const user = await createUser(t.ctx)
    const company = await createCompany(t.app, user.token)
    // A newest event ahead of the clock: every write then starts its events 1 µs after it, so
    // concurrent writes pick the same instants and all but one must take theirs back and retry.
    await t.ctx.db.query(
      `INSERT INTO audit_events (company_id, actor_type, actor_name, verb, entity_type, created_at)
       VALUES ($1, 'system', 'system', 'updated', 'company', now() + interval '1 minute')`,
      [company.id],
    )
    await Promise.all(Array.from({ length: 8 }, (_, w) => write(t.ctx, async (tx) => {
      for (let i = 0; i < 3; i++) {
        await recordAudit(tx, { companyId: company.id, actor: { type: 'system', name: 'system' }, verb: 'updated', entityType: 'company', entityId: company.id, label: `w${w}-${i}` })
      }
    })))
    const rows = await t.ctx.db.many<{ label: string; us: number }>(
      `SELECT label, (extract(epoch FROM created_at) * 1e6)::bigint AS us FROM audit_events
        WHERE company_id = $1 AND label LIKE 'w%' ORDER BY created_at`,
      [company.id],
    )
    expect(rows).toHaveLength(24)
    expect(new Set(rows.map((r) => r.us)).size).toBe(24)
    for (let w = 0; w < 8; w++) {
      const mine = rows.filter((r) => r.label.startsWith(`w${w}-`))
      expect(mine.map((r) => r.label)).toEqual([`w${w}-0`, `w${w}-1`, `w${w}-2`])
      expect(Number(mine[2].us) - Number(mine[0].us)).toBe(2) // one write's events are 1 µs apart
    }
  })

  it('pages without skipping or repeating events made by concurrent requests', async () => {
    const user = await createUser(t.ctx)
    const company = await createCompany(t.app, user.token)
    const url = `/api/companies/${company.id}`
    await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => createTask(t.app, user.token, company.id, { title: `c${i}` })),
      ...Array.from({ length: 20 }, (_, i) => call(t.app, 'POST', `${url}/goals`, { token: user.token, body: { title: `g${i}` } })),
      ...Array.from({ length: 10 }, (_, i) => call(t.app, 'PATCH', url, { token: user.token, body: { name: `n${i}` } })),
    ])
    const expected = await allIds(company.id)
    expect(new Set(expected).size).toBe(expected.length)
    expect(expected.length).toBeGreaterThanOrEqual(41)
    expect(await walk(user, company.id, 6)).toEqual(expected)
  })

  it("answers one record's events with entity_type and entity_id, paged with before", async () => {
    const user = await createUser(t.ctx, 'Mover')
    const company = await createCompany(t.app, user.token)
    const agent = await hireAgent(t.app, user.token, company.id, { name: 'Grace' })
    const task = await createTask(t.app, user.token, company.id, { title: 'Followed' })
    const other = await createTask(t.app, user.token, company.id, { title: 'Noise' })
    const patch = (id: string, body: object) => call(t.app, 'PATCH', `/api/companies/${company.id}/tasks/${id}`, { token: user.token, body })
    for (const status of ['in_progress', 'in_review', 'done']) {
      expect((await patch(task.id, { status })).status).toBe(200)
      expect((await patch(other.id, { status })).status).toBe(200)
    }
    expect((await patch(task.id, { assignee_agent_id: agent.id })).status).toBe(200)

    const forTask = `?entity_type=task&entity_id=${task.id}`
    const all = await page(user, company.id, forTask)
    expect(all.status).toBe(200)
    expect(all.body.map((e: any) => e.verb)).toEqual(['updated', 'moved', 'moved', 'moved', 'created'])
    expect(all.body.every((e: any) => e.entity_type === 'task' && e.entity_id === task.id)).toBe(true)
    expect(all.body[0].changes).toEqual({ assignee_agent_id: [null, agent.id] })
    expect(all.body[1].changes).toEqual({ status: ['in_review', 'done'] })

    // Paged by before, within the record's events only.
    const first = await page(user, company.id, `${forTask}&limit=2`)
    const rest = await page(user, company.id, `${forTask}&limit=10&before=${encodeURIComponent(first.body[1].created_at)}`)
    expect([...first.body, ...rest.body].map((e: any) => e.id)).toEqual(all.body.map((e: any) => e.id))
    // Another company's record reads as nothing, not as that company's events.
    const stranger = await createUser(t.ctx)
    const elsewhere = await createCompany(t.app, stranger.token)
    expect((await page(stranger, elsewhere.id, forTask)).body).toEqual([])
  })

  it('refuses entity_type without entity_id and the reverse, and unknown values, with 422', async () => {
    const user = await createUser(t.ctx)
    const company = await createCompany(t.app, user.token)
    const id = company.id
    for (const [q, field] of [[`?entity_type=task`, 'entity_id'], [`?entity_id=${id}`, 'entity_type'], [`?entity_type=ship&entity_id=${id}`, 'entity_type'], ['?entity_type=task&entity_id=ENG-1', 'entity_id']]) {
      const r = await page(user, company.id, q)
      expect(r.status, q).toBe(422)
      expect(r.body.error.code).toBe('VALIDATION_ERROR')
      expect(r.body.error.message, q).toContain(field)
    }
  })

  it("reads one record's events from the (company, entity, created_at) index", async () => {
    const user = await createUser(t.ctx)
    const company = await createCompany(t.app, user.token)
    const plan = await write(t.ctx, async (tx) => {
      // Tables this small are read whole otherwise; what matters is which index serves the query.
      await tx.query('SET LOCAL enable_seqscan = off')
      const rows = await tx.many<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT id FROM audit_events WHERE company_id = $1 AND entity_type = 'task' AND entity_id = $1
          AND created_at < now() ORDER BY created_at DESC LIMIT 50`,
        [company.id],
      )
      return rows.map((r) => r['QUERY PLAN']).join('\n')
    })
    expect(plan).toContain('audit_events_record')
    expect(plan).not.toMatch(/Sort/)
  })
})
