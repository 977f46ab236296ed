// The command-line client under test: the real executable against a real server process (the
// test worker's shared one, on a database of its own), each test with its own HOME and so its
// own config file.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { ShopfloorClient } from '../../src/client/index.ts'
import { uniqueEmail } from '../helpers.ts'
import { BIN, ROOT, type ServerProcess, tempDir } from '../server-process.ts'
import { sharedServer } from '../shared-server.ts'

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

export interface RunOptions {
  home: string
  env?: Record<string, string>
  /** Written to standard input (otherwise stdin is closed). */
  input?: string
}

export interface CliWorld {
  server: ServerProcess
  url: string
  /** `shopfloor <args>` as a separate process; SHOPFLOOR_URL points at the server. */
  run(args: string[], options: RunOptions): Promise<CliResult>
  /** run() that must succeed, answering its parsed --json output. */
  json<T = any>(args: string[], options: RunOptions): Promise<T>
  stop(): Promise<void>
}

/** The CLI against the test worker's shared server (test/shared-server.ts). */
export async function startWorld(): Promise<CliWorld> {
  const server = await sharedServer()
  const run = (args: string[], options: RunOptions) => runCli(args, { ...options, env: { SHOPFLOOR_URL: server.url, ...options.env } })
  return {
    server,
    url: server.url,
    run,
    async json(args, options) {
      const result = await run([...args, '--json'], options)
      if (result.code !== 0) throw new Error(`shopfloor ${args.join(' ')} exited ${result.code}: ${result.stderr}`)
      return JSON.parse(result.stdout)
    },
    // Leaves the server to the worker's next files; removes the homes this file made.
    async stop() {
      for (const dir of homes.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Runs the executable with a clean environment: nothing of the caller's SHOPFLOOR_* leaks in. */
export function runCli(args: string[], options: RunOptions): Promise<CliResult> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: options.home, ...options.env }
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => (stderr += d))
  child.stdin.end(options.input ?? '')
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })))
}

const homes: string[] = []

/** A fresh HOME, so a fresh config file (removed when the world stops). */
export function newHome(): string {
  const home = tempDir('shopfloor-cli-home-')
  homes.push(home)
  return home
}

export function configFile(home: string): string {
  return path.join(home, '.config', 'shopfloor', 'config.json')
}

export interface Account {
  email: string
  password: string
  client: ShopfloorClient
}

/** A registered account (through the API) and a client signed in as it. */
export async function register(url: string, name = 'Casey Operator'): Promise<Account> {
  const client = new ShopfloorClient({ baseUrl: url, retry: false })
  const email = uniqueEmail('cli')
  const password = 'correct-horse-battery'
  await client.auth.register({ email, password, name })
  return { email, password, client }
}

/** A home whose config holds a session of a new account, with a current company. */
export async function signedInHome(world: CliWorld, prefix = 'ENG'): Promise<{ home: string; account: Account; companyId: string }> {
  const account = await register(world.url)
  const home = newHome()
  const login = await world.run(['login', '--email', account.email, '--password-stdin'], { home, input: `${account.password}\n` })
  if (login.code !== 0) throw new Error(`login failed: ${login.stderr}`)
  const company = await world.json(['companies', 'create', `Company ${prefix}`, '--prefix', prefix, '--use'], { home })
  return { home, account, companyId: company.id }
}
