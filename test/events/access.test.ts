// Access that outlives itself, and streams that crowd out others: an open stream ends within
// seconds of its key being revoked, its holder leaving the company or being deactivated; one
// credential holds a bounded number of streams, and so does the process (429 RATE_LIMITED).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, createUser, type TestApp, testApp, type TestUser } from '../helpers.ts'
import { listen, openLiveStream, openStream, ownedCompany, type StreamClient } from './support.ts'

let t: TestApp
let base: string
let owner: TestUser
let companyId: string

beforeAll(async () => {
  t = await testApp({ sseMaxStreamsPerCredential: 3, sseMaxStreams: 8 })
  base = await listen(t.app)
  owner = await createUser(t.ctx, 'Stream Owner')
  companyId = await ownedCompany(t.ctx, owner)
})
afterAll(async () => t?.close())

/** Milliseconds until the server ends the stream; fails after 5 s. */
async function endsWithin(stream: StreamClient): Promise<number> {
  const started = Date.now()
  await Promise.race([stream.ended, new Promise((_, reject) => setTimeout(() => reject(new Error('the stream stayed open')), 5000))])
  return Date.now() - started
}

async function member(role = 'member'): Promise<TestUser> {
  const user = await createUser(t.ctx, 'Member')
  await t.ctx.db.query('INSERT INTO memberships (company_id, user_id, role) VALUES ($1, $2, $3)', [companyId, user.id, role])
  return user
}

describe('a stream ends within seconds', () => {
  it('when its holder is removed from the company', async () => {
    const leaving = await member()
    const stream = await openLiveStream(base, companyId, leaving.token)
    const removed = await call(t.app, 'DELETE', `/api/companies/${companyId}/members/${leaving.id}`, { token: owner.token })
    expect(removed.status).toBe(204)
    expect(await endsWithin(stream)).toBeLessThan(5000)
    // The owner's own stream is untouched by it.
  })

  it('when its API key is revoked, and not the streams of other credentials', async () => {
    const holder = await member()
    const key = await call(t.app, 'POST', '/api/me/api-keys', { token: holder.token, body: { name: 'stream' } })
    expect(key.status).toBe(201)
    const byKey = await openLiveStream(base, companyId, key.body.key)
    const bySession = await openLiveStream(base, companyId, holder.token)
    expect((await call(t.app, 'DELETE', `/api/me/api-keys/${key.body.id}`, { token: holder.token })).status).toBe(204)
    expect(await endsWithin(byKey)).toBeLessThan(5000)
    await new Promise((r) => setTimeout(r, 500))
    let sessionEnded = false
    void bySession.ended.then(() => (sessionEnded = true))
    await new Promise((r) => setTimeout(r, 50))
    expect(sessionEnded).toBe(false)
    bySession.close()
  })

  it('when its user is deactivated', async () => {
    const holder = await member()
    const stream = await openLiveStream(base, companyId, holder.token)
    await t.ctx.db.query('UPDATE users SET is_active = false WHERE id = $1', [holder.id])
    expect(await endsWithin(stream)).toBeLessThan(5000)
  })
})

describe('stream caps', () => {
  it('one credential holds at most SSE_MAX_STREAMS_PER_CREDENTIAL; the next is 429 RATE_LIMITED, others are served', async () => {
    const holder = await member()
    const open = [] as StreamClient[]
    for (let i = 0; i < 3; i++) open.push(await openLiveStream(base, companyId, holder.token))
    const refused = await openStream(base, companyId, { token: holder.token })
    expect(refused.status).toBe(429)
    expect(JSON.parse(refused.body()).error).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringContaining('SSE_MAX_STREAMS_PER_CREDENTIAL') })
    const other = await openLiveStream(base, companyId, owner.token)
    expect(other.status).toBe(200)
    // Closing one frees its place.
    open[0].close()
    await new Promise((r) => setTimeout(r, 200))
    open[0] = await openLiveStream(base, companyId, holder.token)
    expect(open[0].status).toBe(200)

    // The process as a whole: 8 at most.
    const more = [] as StreamClient[]
    for (const user of [await member(), await member()]) for (let i = 0; i < 3; i++) {
      const s = await openStream(base, companyId, { token: user.token })
      more.push(s)
    }
    const statuses = more.map((s) => s.status)
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0)
    const last = more.find((s) => s.status === 429)!
    expect(JSON.parse(last.body()).error.message).toContain('SSE_MAX_STREAMS')
    for (const s of [...open, other, ...more]) s.close()
  })
})
