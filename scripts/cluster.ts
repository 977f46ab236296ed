// `npm run cluster`: the scaled-out installation of docs/deploy.md on this machine, without
// containers - PostgreSQL (a new throwaway cluster), Redis, three API instances behind HAProxy,
// the scheduler as its own process and two runners of a demo company (simulated agents). The
// same topology test/faults/cluster.test.ts puts through crashes and restarts. Ctrl-C stops
// everything it started and removes the database.
//   npm run cluster -- [--apis N] [--port PORT]
import { parseArgs } from 'node:util'
import { ShopfloorClient } from '../src/client/index.ts'
import { startCluster } from '../test/faults/topology.ts'

const USAGE = 'Usage: npm run cluster -- [--apis N] [--port PORT]\n'
let values
try {
  values = parseArgs({ options: { apis: { type: 'string' }, port: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }).values
} catch (err: any) {
  process.stderr.write(`${err.message}\n${USAGE}`)
  process.exit(2)
}
if (values.help) {
  process.stdout.write(USAGE)
  process.exit(0)
}
const apis = Number(values.apis ?? 3)
if (!Number.isInteger(apis) || apis < 1 || apis > 9) {
  process.stderr.write(`--apis must be 1 to 9\n${USAGE}`)
  process.exit(2)
}

const say = (line: string) => process.stdout.write(`${line}\n`)
let stopCluster = async () => {}
let stopping = false
const stop = async () => {
  if (stopping) return
  stopping = true
  say('\nStopping...')
  await stopCluster()
  process.exit(0)
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
const cluster = await startCluster({
  apis,
  say,
  onStop: (fn) => (stopCluster = fn),
  env: { ENVIRONMENT: 'development', LOG_LEVEL: 'warn', ...(values.port ? { PROXY_PORT: values.port } : {}) },
})

try {
  const client = new ShopfloorClient({ baseUrl: cluster.url, retry: false })
  const email = `owner-${Date.now().toString(36)}@example.test`
  const password = 'cluster-demo-password'
  await client.auth.register({ email, password, name: 'Cluster Owner' })
  const company = await client.companies.create({ name: 'Cluster Demo', task_prefix: 'DEMO' })
  const key = await client.apiKeys.create({ name: 'cluster runners' })
  await client.agents.hire(company.id, { name: 'Clerk', adapter: 'simulated' })
  for (const name of ['runner-a', 'runner-b']) await cluster.startRunner(name, key.key, company.id, ['--simulate'])
  say(`Runners: runner-a, runner-b (simulated agents)

Open ${cluster.url}/ and sign in as ${email} / ${password}
API: ${cluster.url}/api   probes: /livez /readyz   metrics: each instance's /metrics
Ctrl-C stops everything.`)
} catch (err) {
  process.stderr.write(`${(err as Error).stack}\n`)
  await stop()
}
