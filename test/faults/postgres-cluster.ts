// A PostgreSQL server of the fault tests' own: a throwaway cluster (initdb) on a free port, which
// the tests stop and start at will without disturbing any other user of the machine's server.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { freePort } from '../server-process.ts'

const BIN_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/14/bin']

function binary(name: string): string {
  for (const dir of BIN_DIRS) if (fs.existsSync(path.join(dir, name))) return path.join(dir, name)
  return name // on the PATH
}

export function hasPostgresBinaries(): boolean {
  try {
    execFileSync(binary('initdb'), ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** PostgreSQL refuses to run as root: commands then run as the `postgres` user. */
function run(command: string, args: string[]): void {
  if (process.getuid?.() === 0) {
    const quoted = [command, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
    execFileSync('su', ['postgres', '-s', '/bin/sh', '-c', quoted], { stdio: 'pipe' })
  } else {
    execFileSync(command, args, { stdio: 'pipe' })
  }
}

export interface OwnPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string
  port: number
  /** A fast shutdown, as an administrator's restart would do it: every connection is cut. */
  stop(): Promise<void>
  start(): Promise<void>
  /** Stops the server and removes its files. */
  destroy(): Promise<void>
}

export async function ownPostgres(): Promise<OwnPostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shopfloor-pg-'))
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres', dir])
  const data = path.join(dir, 'data')
  const port = await freePort()
  run(binary('initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8'])
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`
  const start = async () => run(binary('pg_ctl'), ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', 'start'])
  const stop = async () => run(binary('pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'])
  await start()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    async destroy() {
      await stop().catch(() => {})
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}
