// Git as the runner calls it. Two kinds of call:
// - remote calls (clone, fetch, push) with the runner's own environment (its credentials reach
//   the remote) but never a prompt, and with file:// refused unless the operator allowed local
//   repositories (`protocol.file.allow`);
// - local calls in a worktree after the agent worked in it, where the repository's own
//   configuration is the agent's to write: no hooks, no fsmonitor, no external diff or
//   text conversion, no signing. The clone's configuration is also put back as it was before
//   the agent (workspace.ts), so nothing the agent set there runs with the runner's rights.
import { execFile, spawn } from 'node:child_process'
import { promisify } from 'node:util'

const exec = promisify(execFile)
export const GIT_TIMEOUT_MS = 10 * 60_000

/** Settings that keep a repository's own configuration from running anything. */
const SAFE_LOCAL = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'commit.gpgsign=false',
  '-c', 'core.quotepath=off', '-c', 'diff.external=', '-c', 'color.ui=false']

export interface GitOptions {
  allowLocal?: boolean
  env?: NodeJS.ProcessEnv
  timeoutMs?: number
  maxBuffer?: number
}

function remoteSettings(allowLocal: boolean): string[] {
  return ['-c', `protocol.file.allow=${allowLocal ? 'always' : 'never'}`, '-c', 'core.hooksPath=/dev/null']
}

const quiet = (env?: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ ...process.env, ...env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '/bin/false' })

/** A git call that talks to the remote (clone, fetch, push). */
export async function remoteGit(cwd: string | null, args: string[], options: GitOptions = {}): Promise<string> {
  const { stdout } = await exec('git', [...(cwd ? ['-C', cwd] : []), ...remoteSettings(options.allowLocal ?? false), ...args], {
    env: quiet(options.env), timeout: options.timeoutMs ?? GIT_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024,
  })
  return stdout
}

/** A local git call in `cwd` (a clone or a worktree), safe to make after an agent wrote there. */
export async function localGit(cwd: string, args: string[], options: GitOptions = {}): Promise<string> {
  const { stdout } = await exec('git', ['-C', cwd, ...SAFE_LOCAL, ...args], {
    env: quiet(options.env), timeout: options.timeoutMs ?? GIT_TIMEOUT_MS, maxBuffer: options.maxBuffer ?? 64 * 1024 * 1024,
  })
  return stdout
}

/** A local git call whose answer may be absent: null when git says no (exit code 1, unknown revision). */
export function localGitOrNull(cwd: string, args: string[]): Promise<string | null> {
  return localGit(cwd, args).then((out) => out.trim(), () => null)
}

/**
 * The first `maxBytes` of a local git call's output, and whether there was more (then the call
 * is stopped): a diff of a large change is never held in memory whole.
 */
export function localGitHead(cwd: string, args: string[], maxBytes: number): Promise<{ text: string; clipped: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['-C', cwd, ...SAFE_LOCAL, ...args], { env: quiet(), stdio: ['ignore', 'pipe', 'pipe'] })
    const chunks: Buffer[] = []
    let size = 0
    let clipped = false
    let stderr = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), GIT_TIMEOUT_MS)
    child.stdout.on('data', (chunk: Buffer) => {
      if (clipped) return
      if (size + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - size))
        size = maxBytes
        clipped = true
        child.kill('SIGKILL')
        return
      }
      chunks.push(chunk)
      size += chunk.length
    })
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr = (stderr + text).slice(-2000)))
    child.once('error', reject)
    child.once('close', (code) => {
      clearTimeout(timer)
      if (code !== 0 && !clipped) return reject(new Error(`git ${args[0]} failed: ${stderr.trim()}`))
      // A cut in the middle of a character is left out, not shown as a replacement.
      const text = new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks)).replace(/\uFFFD+$/, '')
      resolve({ text, clipped })
    })
  })
}
