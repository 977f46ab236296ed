import { spawn } from 'node:child_process'
import fs from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { embeddedDataDir, workerDatabaseUrl } from '../databases.ts'
import { BIN, freePort, ROOT, type ServerProcess, startServer, tempDir } from '../server-process.ts'
import { builtWebApp } from '../web-build.ts'

async function register(url: string, email: string) {
  return fetch(`${url}/api/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'password123', name: 'Persisted Person' }),
  })
}

/** The environment of the `shopfloor serve` process that `npm start` started (in its process group). */
function serverEnvironment(npm: ServerProcess): Record<string, string> {
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      // The process group is the fifth field of /proc/<pid>/stat, after the parenthesised name.
      const group = Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[2])
      const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
      if (group !== npm.child.pid || !command.some((arg) => arg.endsWith('bin/shopfloor.js')) || !command.includes('serve')) continue
      const pairs = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean)
      return Object.fromEntries(pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]))
    } catch {
      // A process that exited while being read.
    }
  }
  throw new Error(`no shopfloor serve process in the group of npm start (${npm.child.pid})`)
}

describe('the server process', () => {
  it('`npm start` keeps its data in DATA_DIR across a restart', async () => {
    const dataDir = tempDir() // empty: the first start creates the database
    // `npm start` builds the web app first when it is stale: into the tests' folder, not web/dist.
    const web = { WEB_DIST_DIR: await builtWebApp() }
    const first = await startServer({ DATA_DIR: dataDir, ...web }, { npm: true, timeoutMs: 120_000 })
    const email = `persist-${Date.now()}@example.test`
    try {
      // On the embedded database, npm start gives the server glibc's malloc a fixed mmap
      // threshold: 30-50 MB less memory idle (docs/operations.md "Memory").
      expect(serverEnvironment(first).GLIBC_TUNABLES).toBe('glibc.malloc.mmap_threshold=131072')
      expect((await register(first.url, email)).status).toBe(201)
    } finally {
      // npm and the server both get the signal; the server's own clean exit is tested below.
      await first.stop()
    }
    const second = await startServer({ DATA_DIR: dataDir, ...web }, { npm: true, timeoutMs: 120_000 })
    try {
      const login = await fetch(`${second.url}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: 'password123' }),
      })
      expect(login.status).toBe(200)
      expect((await login.json()).user.name).toBe('Persisted Person')
    } finally {
      await second.stop()
    }
  }, 300_000)

  it.runIf(workerDatabaseUrl())('`npm start` on PostgreSQL leaves malloc as it is (a fixed threshold would cost its large lists)', async () => {
    const server = await startServer({ DATABASE_URL: (await workerDatabaseUrl())!, WEB_DIST_DIR: await builtWebApp() }, { npm: true, timeoutMs: 120_000 })
    try {
      expect(serverEnvironment(server)).not.toHaveProperty('GLIBC_TUNABLES')
    } finally {
      await server.stop()
    }
  }, 180_000)

  it('on the embedded database, a kill -9 keeps every acknowledged write', async () => {
    const dataDir = embeddedDataDir()
    const first = await startServer({ DATA_DIR: dataDir })
    const emails = Array.from({ length: 3 }, (_, i) => `kill9-${i}-${Date.now()}@example.test`)
    try {
      for (const email of emails) expect((await register(first.url, email)).status).toBe(201)
    } finally {
      // No chance to flush anything: what was acknowledged must already be on disk.
      await first.stop('SIGKILL')
    }
    const second = await startServer({ DATA_DIR: dataDir })
    try {
      for (const email of emails) {
        const login = await fetch(`${second.url}/api/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, password: 'password123' }),
        })
        expect(login.status).toBe(200)
      }
    } finally {
      await second.stop()
    }
  }, 300_000)

  // One embedded server for the last two tests, rather than a start for each: the second process
  // is refused beside it, then it is stopped with SIGTERM (last, as that ends it).
  describe('one server on an embedded database', () => {
    let dataDir: string
    let server: ServerProcess
    beforeAll(async () => {
      dataDir = embeddedDataDir()
      server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info' })
    }, 120_000)
    afterAll(async () => {
      await server?.stop()
    })

    it('a second process on the same DATA_DIR refuses with a clear message', async () => {
      const port = await freePort()
      const second = spawn(process.execPath, [BIN, 'serve'], {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), SCHEDULER: 'off' },
      })
      let stderr = ''
      second.stderr.on('data', (d) => (stderr += d))
      const code = await new Promise<number | null>((resolve) => second.once('exit', resolve))
      expect(code).not.toBe(0)
      expect(stderr).toMatch(/is in use by process \d+/)
      expect((await fetch(`${server.url}/health`)).status).toBe(200) // the first one is unharmed
    }, 120_000)

    it('on SIGTERM finishes the request in flight, then exits 0; logs are JSON lines with a request id', async () => {
      // Registration hashes a password with bcrypt: slow enough to still be in flight.
      const inFlight = register(server.url, `sigterm-${Date.now()}@example.test`)
      await new Promise((r) => setTimeout(r, 30))
      const exit = server.stop('SIGTERM')
      const response = await inFlight
      expect(response.status).toBe(201)
      expect(await exit).toBe(0)
      const lines = server.output().split('\n').filter((l) => l.startsWith('{'))
      const requestLines = lines.map((l) => JSON.parse(l)).filter((l) => l.req?.url === '/api/register')
      expect(requestLines.length).toBeGreaterThan(0)
      for (const line of requestLines) expect(line.reqId).toBeTruthy()
      expect(server.output()).toContain('stopped')
    }, 120_000)
  })
})
