// The scaled-out installation of docs/deploy.md on one machine, without containers: PostgreSQL
// (a throwaway cluster), Redis, API instances with SCHEDULER=off behind HAProxy (health checks on
// /readyz), the scheduler as its own process and runners on the proxy's address. Used by
// test/faults/cluster.test.ts and by `npm run cluster` (scripts/cluster.ts). Plain Node: nothing
// here depends on the test framework.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { type OwnPostgres, ownPostgres } from './postgres-cluster.ts'
import { BIN, freePort, ROOT, type ServerProcess, startServer, tempDir } from '../server-process.ts'

export const HAPROXY = '/usr/sbin/haproxy'
export const PGBOUNCER = '/usr/sbin/pgbouncer'

/** A child process whose output is kept, stopped by its own pid. */
export interface Child {
  name: string
  child: ChildProcess
  output(): string
  /** SIGTERM by default; SIGKILL after 15 s. Resolves once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>
}

export function launch(name: string, command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Child {
  const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  const keep = (d: Buffer) => {
    output = (output + d).slice(-200_000)
  }
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return {
    name,
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill(signal)
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(killer)
    },
  }
}

/** Waits until `text` appears in a child's output. */
export async function outputShows(child: Child, text: string | RegExp, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(typeof text === 'string' ? child.output().includes(text) : text.test(child.output()))) {
    if (child.child.exitCode !== null || child.child.signalCode !== null) throw new Error(`${child.name} exited:\n${child.output()}`)
    if (Date.now() > deadline) throw new Error(`${child.name} did not print ${text}:\n${child.output()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

async function ownRedis(): Promise<{ url: string; process: Child }> {
  const port = await freePort()
  const redis = launch('redis', 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'])
  await outputShows(redis, 'Ready to accept connections')
  return { url: `redis://127.0.0.1:${port}`, process: redis }
}

/**
 * HAProxy in front of the API instances: round robin, each instance checked on /readyz twice a
 * second and taken out after two failures; a request whose connection an instance refused is
 * sent to another (`retry-on conn-failure`: safe for writes, as nothing reached the instance).
 * Live event streams are long answers: the server timeout leaves them open.
 */
export function haproxyConfig(port: number, instances: { name: string; port: number }[]): string {
  return `global
  maxconn 2000

defaults
  mode http
  timeout connect 2s
  timeout client 10m
  timeout server 10m
  retries 3
  option redispatch
  retry-on conn-failure

frontend shopfloor
  bind 127.0.0.1:${port}
  default_backend api

backend api
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter 500ms fastinter 250ms downinter 500ms fall 2 rise 2
${instances.map((i) => `  server ${i.name} 127.0.0.1:${i.port} check`).join('\n')}
`
}

/** A PgBouncer in front of a PostgreSQL server, in the given pool mode. */
export async function ownPgbouncer(postgresPort: number, poolMode: 'session' | 'transaction'): Promise<{ url: string; process: Child }> {
  const dir = tempDir('shopfloor-pgbouncer-')
  const port = await freePort()
  fs.writeFileSync(path.join(dir, 'userlist.txt'), '"postgres" ""\n')
  fs.writeFileSync(path.join(dir, 'pgbouncer.ini'), `[databases]
* = host=127.0.0.1 port=${postgresPort}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${path.join(dir, 'userlist.txt')}
pool_mode = ${poolMode}
default_pool_size = 20
max_client_conn = 500
ignore_startup_parameters = extra_float_digits,options
`)
  // PgBouncer refuses to run as root: then it runs as the postgres user, like PostgreSQL.
  const asUser = process.getuid?.() === 0
  if (asUser) {
    const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim()))
    for (const file of ['', 'userlist.txt', 'pgbouncer.ini']) fs.chownSync(path.join(dir, file), uid, gid)
  }
  const bouncer = asUser
    ? launch('pgbouncer', 'su', ['postgres', '-s', '/bin/sh', '-c', `exec ${PGBOUNCER} ${path.join(dir, 'pgbouncer.ini')}`])
    : launch('pgbouncer', PGBOUNCER, [path.join(dir, 'pgbouncer.ini')])
  await outputShows(bouncer, 'process up')
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, process: bouncer }
}

export interface ClusterOptions {
  apis?: number
  /** The API instances' and the scheduler's environment on top of the topology's own. */
  env?: Record<string, string>
  /** Progress lines for people (`npm run cluster`). */
  say?: (line: string) => void
  /** Given at once the function that stops what has been started so far (Ctrl-C while starting). */
  onStop?: (stop: () => Promise<void>) => void
}

export interface ApiInstance {
  name: string
  port: number
  server: ServerProcess | null
  /** kill -9 (a crash). */
  kill(): Promise<void>
  /** Starts it again on the same port; resolves once /readyz answers 200. */
  start(): Promise<void>
}

export interface Cluster {
  /** The proxy's address: the one address clients and runners use. */
  url: string
  databaseUrl: string
  redisUrl: string
  apis: ApiInstance[]
  scheduler: Child
  /** Starts a new scheduler, then stops the old one once the new one runs (a rolling restart). */
  restartScheduler(): Promise<void>
  /** The environment every Shopfloor process of the cluster has. */
  env: Record<string, string>
  /** Runners of one company on the proxy's address. */
  startRunner(name: string, apiKey: string, companyId: string, args?: string[]): Promise<Child>
  /** Stops everything this cluster started, in reverse order. */
  stop(): Promise<void>
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const say = options.say ?? (() => {})
  const stoppers: (() => Promise<void>)[] = []
  const stop = async () => {
    for (const s of stoppers.reverse()) await s().catch(() => {})
    stoppers.length = 0
  }
  options.onStop?.(stop)
  try {
    say('PostgreSQL: a new cluster (initdb)')
    const pg: OwnPostgres = await ownPostgres()
    stoppers.push(() => pg.destroy())
    say(`PostgreSQL: ${pg.url}`)
    const redis = await ownRedis()
    stoppers.push(() => redis.process.stop('SIGKILL'))
    say(`Redis: ${redis.url}`)

    const env: Record<string, string> = {
      DATABASE_URL: pg.url,
      EVENTS_BACKEND: 'redis',
      REDIS_URL: redis.url,
      SCHEDULER: 'off',
      ENVIRONMENT: 'test',
      LOG_LEVEL: 'info',
      ...options.env,
    }
    const count = options.apis ?? 3
    const apis: ApiInstance[] = []
    for (let i = 1; i <= count; i++) {
      const port = await freePort()
      const instance: ApiInstance = {
        name: `api-${i}`,
        port,
        server: null,
        async kill() {
          await instance.server?.stop('SIGKILL')
          instance.server = null
        },
        async start() {
          instance.server = await startServer({ ...env, PORT: String(port) }, { outputLimit: 200_000 })
        },
      }
      apis.push(instance)
      stoppers.push(async () => {
        await instance.server?.stop()
      })
    }
    // Together: the migrations run once, under their lock, whichever instance gets it.
    await Promise.all(apis.map((a) => a.start()))
    say(`API instances: ${apis.map((a) => `${a.name} on ${a.port}`).join(', ')}`)

    const proxyPort = Number(options.env?.PROXY_PORT ?? 0) || (await freePort())
    const dir = tempDir('shopfloor-haproxy-')
    const configFile = path.join(dir, 'haproxy.cfg')
    fs.writeFileSync(configFile, haproxyConfig(proxyPort, apis))
    const proxy = launch('haproxy', HAPROXY, ['-f', configFile, '-db'])
    stoppers.push(() => proxy.stop())
    const url = `http://127.0.0.1:${proxyPort}`
    for (let up = 0; up < 3; ) {
      if (proxy.child.exitCode !== null) throw new Error(`haproxy exited:\n${proxy.output()}`)
      up = (await fetch(`${url}/readyz`).then((r) => r.status).catch(() => 0)) === 200 ? up + 1 : 0
      await new Promise((r) => setTimeout(r, 100))
    }
    say(`HAProxy: ${url} (config ${configFile})`)

    // The scheduler re-reads routines and agents every second, so new ones count at once.
    const startScheduler = async () => {
      // At info level: its start line says when it runs.
      const scheduler = launch('scheduler', process.execPath, [BIN, 'scheduler', '--refresh-seconds', '1'], { env: { ...process.env, ...env, LOG_LEVEL: 'info' } })
      await outputShows(scheduler, 'scheduler started')
      return scheduler
    }
    const cluster: Cluster = {
      url,
      databaseUrl: pg.url,
      redisUrl: redis.url,
      apis,
      env,
      scheduler: await startScheduler(),
      async restartScheduler() {
        const old = cluster.scheduler
        cluster.scheduler = await startScheduler()
        await old.stop()
      },
      async startRunner(name, apiKey, companyId, args = []) {
        const runner = launch(name, process.execPath, [
          BIN, 'runner', '--url', url, '--company', companyId, '--runner-id', name,
          '--heartbeat-seconds', '1', '--poll-seconds', '5', '--backoff-scale', '0.05', ...args,
        ], { env: { ...process.env, ...env, LOG_LEVEL: 'info', SHOPFLOOR_API_KEY: apiKey, XDG_CONFIG_HOME: tempDir('shopfloor-runner-config-'), XDG_CACHE_HOME: tempDir('shopfloor-runner-cache-') } })
        stoppers.push(() => runner.stop())
        await outputShows(runner, 'runner started')
        return runner
      },
      stop,
    }
    stoppers.push(() => cluster.scheduler.stop())
    say('Scheduler: started (its own process)')
    return cluster
  } catch (err) {
    await stop()
    throw err
  }
}
