// The tests' own server starter (test/server-process.ts) gives up at once on a server that dies
// while starting, even by a signal: a CI run once waited out its two-minute hook timeout for a
// server killed from outside, with nothing said of why.
import type { ChildProcess } from 'node:child_process'
import { expect, it } from 'vitest'
import { embeddedDataDir } from '../helpers.ts'
import { startServer, tempDir } from '../server-process.ts'

it('says at once that a server killed while starting has exited', async () => {
  let child: ChildProcess | undefined
  const started = startServer({ DATA_DIR: tempDir('shopfloor-harness-') }, { onSpawn: (spawned) => { child = spawned } })
  while (!child) await new Promise((resolve) => setTimeout(resolve, 5)) // a free port first
  child.kill('SIGTERM')
  const killedAt = Date.now()
  await expect(started).rejects.toThrow(/server exited early \(SIGTERM\)/)
  expect(Date.now() - killedAt).toBeLessThan(5_000)
})

it('waits on /readyz, leaving the whole of /health’s rate limit to the test', async () => {
  // /health allows 100 calls a minute per address (SPEC.md): polled there while a server
  // started, a test that starts several lost calls it meant to make itself.
  const server = await startServer({ DATA_DIR: embeddedDataDir(), RATELIMIT_HEADERS_ENABLED: 'true' })
  try {
    const health = await fetch(`${server.url}/health`)
    expect(health.status).toBe(200)
    expect(health.headers.get('x-ratelimit-remaining')).toBe('99')
  } finally {
    await server.stop()
  }
}, 120_000)
