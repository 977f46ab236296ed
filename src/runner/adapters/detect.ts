// Which agent CLIs this runner can run: each executable set by flag, environment or config file,
// else found on PATH by its usual name, and asked for its `--version` (named in the start-up log).
import { execFile } from 'node:child_process'
import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, isAbsolute, join, resolve } from 'node:path'
import { BASE } from '../environment.ts'

export interface FoundCli {
  path: string
  /** The first line of its `--version`; null when it gave none in time. */
  version: string | null
}

/** Node-based CLIs take seconds to start on a busy machine. */
const VERSION_TIMEOUT_MS = 30_000

/** The executable's path, or null when it cannot be run. A name without a slash is looked up on PATH. */
export function findExecutable(command: string, path = process.env.PATH ?? ''): string | null {
  const candidates = command.includes('/') ? [isAbsolute(command) ? command : resolve(command)] : path.split(delimiter).filter(Boolean).map((dir) => join(dir, command))
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK)
      if (statSync(candidate).isFile()) return candidate
    } catch {
      // not here
    }
  }
  return null
}

/** The first line `<executable> --version` prints, or null when it does not answer. */
export function versionOf(executable: string): Promise<string | null> {
  return new Promise((done) => {
    // The probe gets what every agent gets, not the runner's secrets (its key above all).
    const env = Object.fromEntries(BASE.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]]))
    execFile(executable, ['--version'], { timeout: VERSION_TIMEOUT_MS, env }, (err, stdout, stderr) => {
      const line = `${stdout}`.trim().split('\n')[0] || `${stderr}`.trim().split('\n')[0]
      // Stopped at the timeout, what it printed so far (a warning of Node's on standard error)
      // is no answer: the CLI is then run as one that did not tell its version, not refused.
      if (err?.killed && !/\d+\.\d+\.\d+/.test(line)) return done(null)
      done(err && !line ? null : line || null)
    })
  })
}

export async function findCli(command: string): Promise<FoundCli | null> {
  const path = findExecutable(command)
  if (!path) return null
  return { path, version: await versionOf(path) }
}
