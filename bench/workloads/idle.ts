import http from 'node:http'
import { createCompany } from '../lib/api.ts'
import { cpuSeconds, rssMiB, startShopfloor } from '../lib/processes.ts'
import { dropDatabase, recreateDatabase, withClient } from '../lib/postgres.ts'
import type { Section } from '../lib/report.ts'
import type { Bench, SharedServer } from './context.ts'
import { bearer } from './context.ts'
import { fixture } from './fixture.ts'

/** The safety-net claim poll of a runner left at its default (src/runner/options.ts). */
const POLL_SECONDS = 30
/** Under 1% of one core: 0.6 CPU-seconds a minute. */
const CPU_TARGET = 0.01
/** Memory counts as flat when the last reading is within this of the first. */
const RSS_SLACK_MIB = 10

/** An event stream held open and drained; resolves once its headers arrived. */
function openStream(base: string, path: string, headers: Record<string, string>): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const request = http.get(base + path, { headers: { ...headers, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`event stream answered ${res.statusCode}`))
      res.resume()
      resolve(request)
    })
    request.on('error', (err) => reject(err))
  })
}

/**
 * Workload 9: a server with nothing to do. A company of `agents` agents, `runners` runners
 * connected as the runner connects (an event stream each, and a claim every 30 s, the default
 * safety-net poll, which finds nothing) and `streams` idle browser event streams. Over the
 * window the server process's CPU (utime + stime from /proc) and resident memory are read
 * every few seconds, and PostgreSQL's committed transactions in the database counted (what
 * the server asks of the database while idle). Targets: under 1% of a core, memory flat.
 * On a server and database of its own, or on `shared` ones (smoke mode, Sizes.oneServer).
 */
export async function idle(bench: Bench, shared?: SharedServer): Promise<Section> {
  const { seconds, agents, runners, streams } = bench.sizes.idle
  const url = shared?.url ?? (await recreateDatabase(bench.pg, bench.db('idle')))
  const server = shared?.server ?? (await startShopfloor({ databaseUrl: url }))
  const open: http.ClientRequest[] = []
  const timers: NodeJS.Timeout[] = []
  try {
    const f = await fixture(server.url, 0, 'IDL')
    const company = await createCompany(f.base, f.account.apiKey, 'Idle company', 'IDLE')
    await withClient(url, (c) =>
      c.query(`INSERT INTO agents (company_id, name, adapter) SELECT $1, 'Idle agent ' || g, 'simulated' FROM generate_series(1, $2) g`, [company.id, agents]),
    )
    const headers = bearer(f.account.apiKey)
    const events = `/api/companies/${company.id}/events`
    bench.log(`workload 9: ${runners} runners and ${streams} browser streams, idle for ${seconds} s`)
    let claims = 0
    let claimErrors = 0
    const claim = async (runnerId: string) => {
      const res = await fetch(`${f.base}/api/companies/${company.id}/runs/claim`, {
        method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ runner_id: runnerId }),
      }).catch(() => null)
      claims++
      if (res?.status !== 204) claimErrors++
      await res?.arrayBuffer().catch(() => {})
    }
    for (let i = 0; i < runners; i++) {
      const runnerId = `idle-runner-${i}`
      open.push(await openStream(f.base, events, headers))
      await claim(runnerId)
      // Spread over the interval, as runners started at different times would be.
      const start = setTimeout(() => timers.push(setInterval(() => void claim(runnerId), POLL_SECONDS * 1000)), (i * POLL_SECONDS * 1000) / runners)
      timers.push(start)
    }
    for (let i = 0; i < streams; i++) open.push(await openStream(f.base, events, headers))

    // Settle: connection set-up and the first claims are not idle work.
    await new Promise((r) => setTimeout(r, Math.min(5000, seconds * 100)))
    const commits = () => withClient(url, async (c) => Number((await c.query('SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')).rows[0].xact_commit))
    const cpu0 = cpuSeconds(server.pid)!
    const commits0 = await commits()
    const rss: number[] = [rssMiB(server.pid)!]
    const sampleEvery = Math.max(1, Math.min(10, seconds / 12))
    const started = Date.now()
    await new Promise<void>((resolve) => {
      const sampler = setInterval(() => {
        rss.push(rssMiB(server.pid) ?? 0)
        if (Date.now() - started >= seconds * 1000) {
          clearInterval(sampler)
          resolve()
        }
      }, sampleEvery * 1000)
    })
    const elapsed = (Date.now() - started) / 1000
    const cpu = cpuSeconds(server.pid)! - cpu0
    // Our own commits-counting statements are one each; backends flush statistics within a second.
    await new Promise((r) => setTimeout(r, bench.sizes.statsWait.busy * 1000))
    const committed = (await commits()) - commits0 - 1
    const perMinute = (cpu / elapsed) * 60
    const share = cpu / elapsed
    const first = rss[0]
    const last = rss[rss.length - 1]
    const max = Math.max(...rss)
    const flat = last - first <= RSS_SLACK_MIB
    return {
      title: `9. Idle: ${agents} agents, ${runners} runners, ${streams} event streams`,
      columns: ['window s', 'server CPU-s per minute', 'share of one core', 'RSS first MiB', 'RSS last MiB', 'RSS max MiB', 'claims (204)', 'database commits per minute'],
      rows: [[
        elapsed.toFixed(0), perMinute.toFixed(3), `${(share * 100).toFixed(2)}%`, first.toFixed(0), last.toFixed(0), max.toFixed(0),
        `${claims}${claimErrors ? ` (${claimErrors} not 204)` : ''}`, ((committed / elapsed) * 60).toFixed(0),
      ]],
      verdicts: [
        { target: 'idle server under 1% of a core', measured: `${(share * 100).toFixed(2)}% (${perMinute.toFixed(3)} CPU-s per minute)`, met: share < CPU_TARGET },
        { target: 'idle memory flat', measured: `${first.toFixed(0)} -> ${last.toFixed(0)} MiB (max ${max.toFixed(0)})`, met: flat },
      ],
      notes: [
        `${agents} agents; ${runners} runners, each an event stream and a claim every ${POLL_SECONDS} s (the runner's default safety-net poll), spread over the interval; ` +
          `${streams} more event streams as browsers hold them; all on one company, with an API key. The server sends a heartbeat comment on a stream after 15 s of silence (SSE_HEARTBEAT_SECONDS).`,
        `CPU is the \`shopfloor serve\` process's utime + stime (/proc/<pid>/stat) over the window after ${Math.min(5, seconds / 10)} s of settling; RSS read every ${sampleEvery.toFixed(0)} s. ` +
          `Memory counts as flat when the last reading is within ${RSS_SLACK_MIB} MiB of the first.`,
        'Database commits per minute: transactions committed in the workload\'s database over the window (a statement outside BEGIN counts as one), the claims\' and any polling\'s.',
      ],
    }
  } finally {
    for (const t of timers) clearInterval(t)
    for (const request of open) request.destroy()
    if (!shared) {
      await server.stop()
      await dropDatabase(bench.pg, bench.db('idle'))
    }
  }
}
