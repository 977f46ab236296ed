// Redis stopped and started under a running API process with EVENTS_BACKEND=redis: writes keep
// succeeding while it is away, an open event stream stays open, and events flow again once
// Redis is back (to that stream and to a routine in a company made during the outage).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hasRedisServer, type OwnRedis, ownRedis } from '../events/redis-server.ts'
import { openLiveStream } from '../events/support.ts'
import { type ServerProcess, startServer, tempDir } from '../server-process.ts'
import { http, makeOwner, sleep, waitFor } from './support.ts'

describe.runIf(hasRedisServer())('Redis stopped and started', () => {
  let redis: OwnRedis
  let server: ServerProcess
  beforeAll(async () => {
    redis = await ownRedis()
    server = await startServer(
      { DATA_DIR: tempDir('shopfloor-fault-redis-'), EVENTS_BACKEND: 'redis', REDIS_URL: redis.url, ENVIRONMENT: 'test', SCHEDULER: 'on' },
      { timeoutMs: 120_000 },
    )
  })
  afterAll(async () => {
    await server?.stop()
    await redis?.stop()
  })

  it('writes succeed while Redis is away and events flow again once it is back', async () => {
    const owner = await makeOwner(server.url)
    const stream = await openLiveStream(server.url, owner.base.split('/').pop()!, owner.token)
    const created = (title: string) => http(server.url, 'POST', `${owner.base}/tasks`, owner.token, { title })
    const first = await created('before')
    await waitFor(() => stream.events().some((e) => e.id === first.body.id), 'the first event')

    await redis.stop()
    const during = await created('while Redis is away')
    expect(during.status).toBe(201)

    await redis.start()
    // The stream stayed open and hears writes again once the subscriber is back.
    await waitFor(async () => {
      const again = await created('after')
      await sleep(300)
      return stream.events().some((e) => e.id === again.body.id)
    }, 'events after the restart', 30_000)

    // A company made after the restart: the scheduler's every-company subscription hears its
    // routine at once and fires it (an every-second cron).
    const late = await makeOwner(server.url)
    const agent = await http(server.url, 'POST', `${late.base}/agents`, late.token, { name: 'Late' })
    const routine = await http(server.url, 'POST', `${late.base}/routines`, late.token, { agent_id: agent.body.id, title: 'Tick', cron: '* * * * * *' })
    expect(routine.status).toBe(201)
    await waitFor(async () => {
      const tasks = await http(server.url, 'GET', `${late.base}/tasks`, late.token)
      const items = Array.isArray(tasks.body) ? tasks.body : tasks.body.items
      return items.some((t: any) => t.title === 'Tick')
    }, 'the routine to fire', 20_000)
    stream.close()
    expect(server.child.exitCode).toBeNull()
  })
})
