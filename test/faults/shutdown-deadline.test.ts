// Shutdown has a deadline: a server whose stdout reader stopped reading (the pipe full) still
// exits on SIGTERM, within SHUTDOWN_TIMEOUT_SECONDS, instead of hanging in write() for minutes.
import { spawn } from 'node:child_process'
import { afterAll, describe, expect, it } from 'vitest'
import { embeddedDataDir } from '../databases.ts'
import { BIN, freePort, ROOT } from '../server-process.ts'

let child: ReturnType<typeof spawn> | null = null
afterAll(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

describe('shutdown', () => {
  it('ends within SHUTDOWN_TIMEOUT_SECONDS of SIGTERM while nobody reads its stdout', async () => {
    const port = await freePort()
    child = spawn(process.execPath, [BIN, 'serve'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: '', DATA_DIR: embeddedDataDir(), PORT: String(port), HOST: '127.0.0.1', SCHEDULER: 'off', LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_SECONDS: '3' },
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    const exited = new Promise<number>((resolve) => child!.once('exit', () => resolve(Date.now())))
    const deadline = Date.now() + 120_000
    while (!(await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status === 200, () => false))) {
      if (Date.now() > deadline) throw new Error('the server did not start')
      await new Promise((r) => setTimeout(r, 200))
    }
    // The reader stops reading: every request logs a line or two until the pipe (64 KiB) is full.
    child.stdout!.pause()
    for (let i = 0; i < 400; i++) await fetch(`http://127.0.0.1:${port}/health?padding=${'x'.repeat(200)}`).catch(() => {})
    const signalled = Date.now()
    child.kill('SIGTERM')
    const ended = await Promise.race([exited, new Promise<null>((r) => setTimeout(() => r(null), 15_000))])
    expect(ended, 'still running 15 s after SIGTERM').not.toBeNull()
    expect(ended! - signalled).toBeLessThan(8000)
  })
})
