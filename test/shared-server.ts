// One server process per test worker for the test files that need a plain one (`shopfloor serve`
// with ENVIRONMENT=test, serving the web app built for the tests): the browser tests, the
// command-line client's tests and the runner tests that need no settings of their own. A server
// takes about 1.5 s of CPU to start, and a file on its own server spent more on starting it than
// on some of its tests. Each file makes its own people and companies, as the in-process tests do
// on the worker's database.
//
// A worker ends without running its exit handlers, so the server is left to the global set-up's
// teardown: its process id is written in the run's folder of such servers (`sharedServersDir`),
// and the teardown stops every process listed there before it drops the run's databases.
import fs from 'node:fs'
import path from 'node:path'
import { inject } from 'vitest'
import { embeddedDataDir, scratchPostgres } from './databases.ts'
import { sharedServersDir } from './global-setup.ts'
import { type ServerProcess, startServer } from './server-process.ts'
import { builtWebApp } from './web-build.ts'

let shared: Promise<ServerProcess> | null = null

/**
 * This worker's plain server, started on first use on a database of its own (a clone of the
 * template on TEST_DATABASE_URL, else a copy of the embedded one). Never stop it: later files
 * of the worker use it too.
 */
export function sharedServer(): Promise<ServerProcess> {
  shared ??= (async () => {
    const scratch = await scratchPostgres()
    const database: Record<string, string> = scratch ? { DATABASE_URL: scratch.url } : { DATA_DIR: embeddedDataDir() }
    const server = await startServer({ ENVIRONMENT: 'test', WEB_DIST_DIR: await builtWebApp(), ...database })
    const run = inject('testRun')
    if (run) fs.writeFileSync(path.join(sharedServersDir(run.root), String(server.pid)), '')
    server.child.once('exit', () => (shared = null))
    return server
  })().catch((error) => {
    shared = null
    throw error
  })
  return shared
}
