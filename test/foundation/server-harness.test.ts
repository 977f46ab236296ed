// The tests' own server starter (test/server-process.ts) gives up at once on a server that dies
// while starting, even by a signal: a CI run once waited out its two-minute hook timeout for a
// server killed from outside, with nothing said of why.
import { execSync } from 'node:child_process'
import { expect, it } from 'vitest'
import { startServer, tempDir } from '../server-process.ts'

it('says at once that a server killed while starting has exited', async () => {
  const started = startServer({ DATA_DIR: tempDir('shopfloor-harness-') })
  // This process's own child, found by its parent id: no other server is touched.
  const own = () => execSync('ps -eo pid,ppid,args').toString().split('\n')
    .map((line) => line.trim().split(/\s+/))
    .find(([, ppid, ...args]) => ppid === String(process.pid) && args.join(' ').includes('shopfloor.js serve'))
  let child: string[] | undefined
  for (let i = 0; i < 50 && !(child = own()); i++) await new Promise((resolve) => setTimeout(resolve, 20))
  process.kill(Number(child![0]), 'SIGTERM')
  const killedAt = Date.now()
  await expect(started).rejects.toThrow(/server exited early \(SIGTERM\)/)
  expect(Date.now() - killedAt).toBeLessThan(5_000)
})
