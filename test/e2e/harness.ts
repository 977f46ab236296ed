// What the browser tests run against: the real server process (`shopfloor serve` on a free port,
// its embedded database in a temporary folder, serving the freshly built web app) and a real
// headless Chromium driven by playwright-core.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BrowserContext, chromium } from 'playwright-core'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** Builds web/ into web/dist, as `npm start` does. */
export function buildWebApp(): void {
  const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build-web.mjs')], { cwd: ROOT, encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`web build failed:\n${result.stdout}\n${result.stderr}`)
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
    server.on('error', reject)
  })
}

export interface RunningServer {
  url: string
  stop(): Promise<void>
}

/**
 * Starts `shopfloor serve` and waits until /health answers healthy. Without DATABASE_URL in
 * `env` it runs on the embedded database in a temporary DATA_DIR.
 */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort()
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shopfloor-e2e-'))
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'bin/shopfloor.js'), 'serve'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: '', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ENVIRONMENT: 'test', SCHEDULER: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 90_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${output}`)
    try {
      const response = await fetch(`${url}/health`)
      if (response.ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`server did not become healthy:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 250))
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))])
        if (child.exitCode === null) child.kill('SIGKILL')
      }
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export interface Browser {
  context: BrowserContext
  close(): Promise<void>
}

/** A headless Chromium with its own throw-away profile. */
export async function launchBrowser(viewport = { width: 1360, height: 860 }): Promise<Browser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'shopfloor-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport,
  })
  return {
    context,
    async close() {
      await context.close()
      fs.rmSync(profile, { recursive: true, force: true })
    },
  }
}

/**
 * Where screenshots go: a temporary folder, so an ordinary test run leaves the tree clean;
 * `SCREENSHOTS_DIR=docs/screenshots` refreshes the ones the documentation shows.
 */
export const SCREENSHOTS = process.env.SCREENSHOTS_DIR
  ? path.resolve(ROOT, process.env.SCREENSHOTS_DIR)
  : path.join(os.tmpdir(), 'shopfloor-screenshots')
