// Redis for the event tests: TEST_REDIS_URL when set, otherwise a redis-server of our own on a
// free port (it can be stopped and started again without disturbing anyone else).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import net from 'node:net'
import { Redis } from 'ioredis'
import { TEST_REDIS_URL } from '../helpers.ts'

const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379'

export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version']).status === 0
}

async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

export interface OwnRedis {
  url: string
  /** Kills the server (as a crash would). */
  stop(): Promise<void>
  /** Starts it again on the same port, empty. */
  start(): Promise<void>
}

/** A redis-server of our own, without persistence, on a free port. */
export async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort()
  let child: ChildProcess | null = null
  const start = async () => {
    const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child = proc
    await new Promise<void>((resolve, reject) => {
      let output = ''
      proc.stdout!.on('data', (chunk) => {
        output += chunk
        if (output.includes('Ready to accept connections')) resolve()
      })
      proc.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)))
    })
  }
  const stop = async () => {
    const proc = child
    if (!proc || proc.exitCode !== null) return
    const exited = new Promise((resolve) => proc.once('exit', resolve))
    proc.kill('SIGKILL')
    await exited
  }
  await start()
  return { url: `redis://127.0.0.1:${port}`, start, stop }
}

/** The Redis the tests share: TEST_REDIS_URL, else our own server, else the local default. */
export async function testRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  if (TEST_REDIS_URL) return { url: TEST_REDIS_URL, stop: async () => {} }
  if (hasRedisServer()) return ownRedis()
  return { url: DEFAULT_REDIS_URL, stop: async () => {} }
}

/** How many connections subscribe to a channel (PUBSUB NUMSUB), asked on a connection of its own. */
export async function subscriberCount(url: string, channel: string): Promise<number> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 })
  try {
    await redis.connect()
    const [, count] = (await redis.pubsub('NUMSUB', channel)) as [string, number]
    return Number(count)
  } catch {
    return -1 // not reachable
  } finally {
    redis.disconnect()
  }
}
