// A client that stops reading: its connection buffers at most 1,000 events and drops the rest,
// its memory stays bounded, and the other streams of the company keep receiving everything.
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { EventStream } from '../../src/server/events/stream.ts'
import { MAX_BUFFERED_EVENTS } from '../../src/server/events/stream.ts'
import { streamsOf } from '../../src/server/events/routes.ts'
import { createUser, type TestApp, testApp } from '../helpers.ts'
import { listen, openLiveStream, ownedCompany, waitUntil } from './support.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

it('caps a slow connection at 1,000 buffered events without holding back the others', async () => {
  const base = await listen(t.app)
  const user = await createUser(t.ctx)
  const companyId = await ownedCompany(t.ctx, user)
  const fast = await openLiveStream(base, companyId, user.token)
  const slow = await openLiveStream(base, companyId, user.token)
  const [fastStream, slowStream] = [...streamsOf(t.ctx)] as EventStream[]
  slow.pause()

  // Big events fill the socket buffers quickly. Publish in batches and let the fast client
  // take each batch, until the slow connection has had to drop some.
  const padding = 'x'.repeat(8 * 1024)
  let published = 0
  let peakQueue = 0
  let peakSocketBytes = 0
  let extraBatches = 5
  while (extraBatches > 0) {
    for (let i = 0; i < 50; i++) t.ctx.bus.publish(companyId, { type: 'task.updated', id: String(++published), padding })
    peakQueue = Math.max(peakQueue, slowStream.buffered)
    peakSocketBytes = Math.max(peakSocketBytes, slowStream.socketBuffered)
    await waitUntil(() => fast.events().length === published, `the fast client to take event ${published}`)
    if (slowStream.dropped > 0) extraBatches--
    if (published > 20_000) throw new Error('the slow connection never dropped an event')
  }

  expect(peakQueue).toBe(MAX_BUFFERED_EVENTS)
  expect(slowStream.buffered).toBe(MAX_BUFFERED_EVENTS)
  // Bounded memory: the socket holds little more than its high-water mark, the rest is the queue.
  expect(peakSocketBytes).toBeLessThan(256 * 1024)
  expect(fastStream.dropped).toBe(0)
  expect(fast.events().map((e) => e.id)).toEqual(Array.from({ length: published }, (_, i) => String(i + 1)))

  // The slow client reads again: it gets what was kept, misses what was dropped, and stays live.
  const dropped = slowStream.dropped
  expect(dropped).toBeGreaterThan(0)
  slow.resume()
  await waitUntil(() => slow.events().length === published - dropped, 'the slow client to take what was kept')
  expect(slowStream.buffered).toBe(0)
  t.ctx.bus.publish(companyId, { type: 'task.created', id: 'marker' })
  await waitUntil(() => slow.events().at(-1)?.id === 'marker', 'a new event on the slow client')
  expect(slowStream.dropped).toBe(dropped)
  fast.close()
  slow.close()
})
