import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { checkLocal } from '../lib/postgres.ts'

const exec = promisify(execFile)

async function run(command: string, args: string[]) {
  try {
    return await exec(command, args)
  } catch (err: any) {
    if (err?.code === 'ENOENT') throw new Error('pgbench not found: install PostgreSQL\'s client programs (Debian: postgresql-client)')
    throw err
  }
}

export interface PgbenchResult {
  tps: number
  latencyMs: number
}

function connectionArgs(url: string): string[] {
  const u = checkLocal(url)
  return ['-h', u.hostname, '-p', u.port || '5432', '-U', decodeURIComponent(u.username || 'postgres')]
}

/** `pgbench -i` at `scale` (100,000 accounts per unit) into the database of `url`. */
export async function pgbenchInit(url: string, scale: number): Promise<void> {
  const db = checkLocal(url).pathname.slice(1)
  await run('pgbench', [...connectionArgs(url), '-i', '-q', '-s', String(scale), db])
}

/**
 * One pgbench run: the built-in select-only script (`-S`) or the default TPC-B-like one, with
 * `clients` connections (the size of Shopfloor's pool) for `seconds`, or for `transactions` per
 * client when given.
 */
export async function pgbench(
  url: string,
  script: 'select-only' | 'default',
  { clients, seconds, transactions }: { clients: number; seconds: number; transactions?: number },
): Promise<PgbenchResult> {
  const db = checkLocal(url).pathname.slice(1)
  const duration = transactions ? ['-t', String(transactions)] : ['-T', String(seconds)]
  const args = [...connectionArgs(url), '-c', String(clients), '-j', '2', ...duration, '-n']
  if (script === 'select-only') args.push('-S')
  const { stdout } = await run('pgbench', [...args, db])
  const tps = /tps = ([\d.]+)/.exec(stdout)
  const latency = /latency average = ([\d.]+) ms/.exec(stdout)
  if (!tps) throw new Error(`pgbench printed no tps:\n${stdout}`)
  return { tps: Number(tps[1]), latencyMs: latency ? Number(latency[1]) : 0 }
}
