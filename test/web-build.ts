// The web app as the browser and process tests serve it: built once per test run (by the first
// test that asks) into the run's temporary folder, never into web/dist, which a running
// server may be serving. Servers are pointed at it with WEB_DIST_DIR.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { inject } from 'vitest'
import { ROOT, tempDir } from './server-process.ts'

let dir: string | null = null

/** The folder of the built web app, building it first when no test of this run has. */
export async function builtWebApp(): Promise<string> {
  dir ??= path.join(inject('testRun')?.root ?? tempDir('shopfloor-web-'), 'web-dist')
  const index = path.join(dir, 'index.html')
  // Test files run in parallel: the first takes the lock and builds, the others wait for it.
  const lock = `${dir}.lock`
  const deadline = Date.now() + 300_000
  while (!fs.existsSync(index)) {
    try {
      fs.mkdirSync(lock)
    } catch {
      if (Date.now() > deadline) throw new Error(`the web app was not built in time (${lock} is held)`)
      await new Promise((r) => setTimeout(r, 250))
      continue
    }
    try {
      if (!fs.existsSync(index)) {
        const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build-web.mjs')], {
          cwd: ROOT,
          env: { ...process.env, WEB_DIST_DIR: dir },
          encoding: 'utf8',
        })
        if (result.status !== 0) throw new Error(`web build failed:\n${result.stdout}\n${result.stderr}`)
      }
    } finally {
      fs.rmdirSync(lock)
    }
  }
  return dir
}
