// Fan-out of live events: many concurrent streams on one company.
//
//   node --expose-gc --import tsx bench/events-fanout.ts [--streams 1000] [--events 200] [--rate 50]
//
// The API runs in this process (PGlite in memory, or DATABASE_URL; EVENTS_BACKEND and REDIS_URL
// as for the server). The stream clients run in a child process so that the memory measured
// here is the server's. Reports:
//   - memory per open stream (heap and RSS growth of the server, after GC when --expose-gc),
//   - paced phase: events committed at --rate per second; p50/p99 delay from commit to receipt,
//   - burst phase: events committed back to back; deliveries per second, p50/p99 delay.
// The commit instant is stamped by the bus wrapper below, which write() calls right after COMMIT.
import { fork } from 'node:child_process'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import type { EventBus } from '../src/server/events/bus.ts'

// The monotonic clock behind hrtime is one clock for every process on the machine, so a stamp
// taken by the server and one taken by the stream clients subtract exactly. (timeOrigin +
// performance.now() maps each process's own start onto the wall clock, and under load the two
// mappings differed by more than a delivery takes: delays came out below zero.)
const now = () => Number(process.hrtime.bigint()) / 1e6

interface ClientReport {
  deliveries: number
  missing: number
  firstAt: number
  lastAt: number
  p50: number
  p99: number
}

type ToClient = { phase: string; expect: number }
type FromClient = { live: true } | { report: ClientReport }

const { values: args } = parseArgs({
  options: {
    streams: { type: 'string', default: '1000' },
    events: { type: 'string', default: '200' },
    rate: { type: 'string', default: '50' },
    client: { type: 'string' }, // set on the child: the stream URL
    token: { type: 'string' },
  },
})
const streams = Number(args.streams)
const events = Number(args.events)

if (args.client) await runClients(args.client, args.token!)
else await runServer()

async function runServer() {
  // Imported here, not at the top: the stream clients run this same file in a child process,
  // which needs none of the API, and loading it there would double the start-up.
  const { buildApp } = await import('../src/api/app.ts')
  const { hashPassword } = await import('../src/server/auth/passwords.ts')
  const { signAccessToken } = await import('../src/server/auth/tokens.ts')
  const { loadConfig } = await import('../src/server/config.ts')
  const { write } = await import('../src/server/db/write.ts')
  const { createLogger } = await import('../src/server/logger.ts')
  const { createContext } = await import('../src/server/start.ts')
  // Every stream is on one token here: the per-credential cap (default 100) is lifted.
  const config = loadConfig({ ...process.env, ENVIRONMENT: 'test', LOG_LEVEL: 'silent', SCHEDULER: 'off', SSE_MAX_STREAMS_PER_CREDENTIAL: String(Math.max(100, streams)), SSE_MAX_STREAMS: String(Math.max(10_000, streams)) })
  const ctx = await createContext(config, createLogger(config), {})
  // Stamp each event at the moment write() hands it over, i.e. right after COMMIT.
  const bus: EventBus = ctx.bus
  ctx.bus = { ...bus, publish: (companyId, event) => bus.publish(companyId, { ...event, committed_at: String(now()) }) }
  const app = await buildApp(ctx)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const port = (app.server.address() as AddressInfo).port

  const user = await ctx.db.one<{ id: string }>(
    "INSERT INTO users (email, name, password_hash) VALUES ($1, 'Bench', $2) RETURNING id",
    [`bench-${Date.now()}@example.test`, await hashPassword('password123', 4)],
  )
  const company = await ctx.db.one<{ id: string }>("INSERT INTO companies (name) VALUES ('Fan-out') RETURNING id")
  await ctx.db.query("INSERT INTO memberships (company_id, user_id, role) VALUES ($1, $2, 'owner')", [company!.id, user!.id])
  const token = await signAccessToken(config.jwtSecret, user!.id)
  const companyId = company!.id

  const before = memory()
  const child = fork(fileURLToPath(import.meta.url), [
    '--client', `http://127.0.0.1:${port}/api/companies/${companyId}/events`,
    '--token', token, '--streams', String(streams),
  ])
  const next = () =>
    new Promise<FromClient>((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`the stream clients exited (${code})`))
      child.once('exit', exited)
      child.once('message', (m) => {
        child.off('exit', exited)
        resolve(m as FromClient)
      })
    })
  await next() // every stream is live
  const after = memory()
  console.log(`backend ${bus.stats().backend}, database ${ctx.db.kind}, ${streams} streams open`)
  console.log(`memory per open stream (server): heap ${kb((after.heap - before.heap) / streams)}, rss ${kb((after.rss - before.rss) / streams)}${global.gc ? '' : ' (run with --expose-gc for steadier figures)'}`)

  const publish = (phase: string, i: number) =>
    write(ctx, async (tx) => tx.publish(companyId, { type: 'task.updated', id: `${phase}-${i}` }))

  const paced = Number(args.rate)
  child.send({ phase: 'paced', expect: events } satisfies ToClient)
  for (let i = 0; i < events; i++) {
    await publish('paced', i)
    await new Promise((resolve) => setTimeout(resolve, 1000 / paced))
  }
  show(`paced (${paced}/s)`, ((await next()) as { report: ClientReport }).report)

  child.send({ phase: 'burst', expect: events } satisfies ToClient)
  const started = now()
  for (let i = 0; i < events; i++) await publish('burst', i)
  const burst = ((await next()) as { report: ClientReport }).report
  show('burst', burst)
  console.log(`  ${Math.round(burst.deliveries / ((burst.lastAt - started) / 1000))} events/s delivered (${events} events x ${streams} streams)`)

  child.kill()
  await app.close()
  await ctx.bus.close()
  await ctx.db.close()
}

function show(label: string, r: ClientReport) {
  console.log(`${label}: ${r.deliveries} deliveries, ${r.missing} missing, commit to receipt p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`)
}

function memory() {
  global.gc?.()
  const m = process.memoryUsage()
  return { heap: m.heapUsed, rss: m.rss }
}

function kb(bytes: number) {
  return `${(bytes / 1024).toFixed(1)} KiB`
}

/** The child: opens the streams, then measures each phase the server announces. */
async function runClients(url: string, token: string) {
  let phase = ''
  let delays: number[] = []
  let firstAt = 0
  let lastAt = 0
  let expected = 0
  const finish = () => {
    const sorted = Float64Array.from(delays).sort()
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN
    const report: ClientReport = { deliveries: delays.length, missing: expected - delays.length, firstAt, lastAt, p50: at(0.5), p99: at(0.99) }
    process.send!({ report } satisfies FromClient)
  }
  let settle: NodeJS.Timeout | undefined
  const onEvent = (event: { id: string; committed_at: string }) => {
    if (!event.id.startsWith(`${phase}-`)) return
    const at = now()
    delays.push(at - Number(event.committed_at))
    firstAt ||= at
    lastAt = at
    if (delays.length === expected) {
      clearTimeout(settle)
      finish()
    }
  }
  process.on('message', (m: ToClient) => {
    phase = m.phase
    expected = m.expect * streams
    delays = []
    firstAt = lastAt = 0
    // A phase that loses events (slow-consumer drops) still reports, after a quiet spell.
    settle = setInterval(() => {
      if (lastAt && now() - lastAt > 5000) {
        clearInterval(settle)
        finish()
      }
    }, 1000)
  })

  let live = 0
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity })
  await Promise.all(
    Array.from({ length: streams }, () =>
      new Promise<void>((resolve, reject) => {
        http.get(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
          if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`))
          res.setEncoding('utf8')
          let pending = ''
          res.on('data', (chunk: string) => {
            pending += chunk
            let cut: number
            while ((cut = pending.indexOf('\n\n')) !== -1) {
              const frame = pending.slice(0, cut)
              pending = pending.slice(cut + 2)
              if (frame.startsWith('retry:')) {
                live++
                resolve()
              } else if (frame.startsWith('data: ')) onEvent(JSON.parse(frame.slice(6)))
            }
          })
        }).on('error', reject)
      }),
    ),
  )
  if (live === streams) process.send!({ live: true } satisfies FromClient)
}
