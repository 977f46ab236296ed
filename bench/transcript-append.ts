// What a runner's report costs as its run's transcript grows, and what reading that run costs.
//
//   node --import tsx bench/transcript-append.ts [--megabytes 20] [--samples 50] [--postgres URL]
//
// The API runs in this process, on PGlite in memory, or with --postgres on a scratch database of
// that (local) server, created and dropped here. One run is claimed and then reported to through
// HTTP as a runner does: `--samples` reports of one 4 KB entry (the runner flushes at 4,096
// characters) while the transcript is small, then reports of 64 such entries until it holds
// `--megabytes`, then `--samples` reports of one entry again. Reports the median and p90 of each
// sample, then GET /runs/{id} (the run page's read) and one page of GET /runs/{id}/transcript.
// An append that costs the same at any length shows the two report figures alike.
import { parseArgs } from 'node:util'
import type { AddressInfo } from 'node:net'
import { dropDatabase, recreateDatabase } from './lib/postgres.ts'

const { values } = parseArgs({ options: { megabytes: { type: 'string' }, samples: { type: 'string' }, postgres: { type: 'string' } } })
const MEGABYTES = Number(values.megabytes ?? 20)
const SAMPLES = Number(values.samples ?? 50)
const ENTRY = 'x'.repeat(4000)

const scratch = `bench_transcript_${process.pid}`
const databaseUrl = values.postgres ? await recreateDatabase(values.postgres, scratch) : undefined

const { buildApp } = await import('../src/api/app.ts')
const { loadConfig } = await import('../src/server/config.ts')
const { createLogger } = await import('../src/server/logger.ts')
const { createContext } = await import('../src/server/start.ts')
const { account, createCompany, hireAgent } = await import('./lib/api.ts')

const env: NodeJS.ProcessEnv = { ...process.env, ENVIRONMENT: 'test', LOG_LEVEL: 'silent', SCHEDULER: 'off' }
if (databaseUrl) env.DATABASE_URL = databaseUrl
else delete env.DATABASE_URL
const config = loadConfig(env)
const ctx = await createContext(config, createLogger(config), {})
const app = await buildApp(ctx)
await app.listen({ host: '127.0.0.1', port: 0 })
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`

const me = await account(base, 'transcript')
const company = await createCompany(base, me.apiKey, 'Transcripts', 'TRN')
const agent = await hireAgent(base, me.apiKey, company.id, 'Writer')
const prefix = `/api/companies/${company.id}`

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; bytes: number; json: any }> {
  const res = await fetch(base + prefix + path, {
    method,
    headers: { authorization: `Bearer ${me.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`)
  return { status: res.status, bytes: text.length, json: text ? JSON.parse(text) : null }
}

await call('POST', `/agents/${agent.id}/wake`, { reason: 'bench' })
const claimed = await call('POST', '/runs/claim', { runner_id: 'bench-runner' })
const runId: string = claimed.json.run.id

const report = (entries: number) =>
  call('PATCH', `/runs/${runId}`, { runner_id: 'bench-runner', status: 'running', transcript: Array.from({ length: entries }, () => ({ text: ENTRY })) })

async function sample(label: string, count: number, fn: () => Promise<unknown>): Promise<void> {
  const ms: number[] = []
  for (let i = 0; i < count; i++) {
    const t = performance.now()
    await fn()
    ms.push(performance.now() - t)
  }
  ms.sort((a, b) => a - b)
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!.toFixed(2)
  console.log(`${label}: median ${at(0.5)} ms, p90 ${at(0.9)} ms (${count} samples)`)
}

console.log(`database ${ctx.db.kind}; entries of ${ENTRY.length} characters`)
await sample('report of one entry, transcript under 1 MB', SAMPLES, () => report(1))
const grow = performance.now()
let reports = 0
while ((await call('GET', `/runs/${runId}/transcript?limit=1`)).json.transcript_total * ENTRY.length < MEGABYTES * 1e6) {
  await report(64)
  reports++
}
console.log(`grown to ${MEGABYTES} MB in ${reports} reports of 64 entries, ${((performance.now() - grow) / 1000).toFixed(1)} s`)
await sample(`report of one entry, transcript of ${MEGABYTES} MB`, SAMPLES, () => report(1))
const whole = await call('GET', `/runs/${runId}`)
console.log(`GET /runs/{id}: ${whole.json.transcript.length} of ${whole.json.transcript_count} entries, ${(whole.bytes / 1e6).toFixed(1)} MB`)
await sample('GET /runs/{id}', 10, () => call('GET', `/runs/${runId}`))
await sample('GET /runs/{id}?transcript_from=<all but the last>', 10, () => call('GET', `/runs/${runId}?transcript_from=${whole.json.transcript_count - 1}`))
await sample('GET /runs/{id}/transcript?after=1000&limit=500', 10, () => call('GET', `/runs/${runId}/transcript?after=1000&limit=500`))

await app.close()
await ctx.bus.close()
await ctx.db.close()
if (values.postgres) await dropDatabase(values.postgres, scratch)
process.exit(0)
