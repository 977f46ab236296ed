// What an agent sees in the sandbox when the runner's folders lie inside one another: real
// bubblewrap, started with the command line `sandboxed()` gives, without a runner. A work folder
// holding the runner's cache and agents' homes (started from one folder, say): the cache and the
// other homes are hidden, the run's worktree and its own home inside them are there and
// writable, and the rest of the system cannot be written.
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { exitThroughSandbox, prepareSandbox, type Sandbox, sandboxed } from '../../src/runner/sandbox.ts'
import { tempDir } from '../server-process.ts'

let work: string
let sandbox: Sandbox
let worktree: string
let home: string

/** Runs a shell script in the sandbox for the worktree and home; its output and exit code. */
function inside(script: string, cwd = worktree, box: Sandbox | null = sandbox) {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@agents.invalid', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@agents.invalid' }
  const [command, args] = sandboxed({ sandbox: box, cwd, home, env }, '/bin/sh', ['-c', script])
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8' })
  return { out: `${result.stdout}${result.stderr}`, code: result.status }
}

beforeAll(async () => {
  work = tempDir('shopfloor-sandbox-mounts-')
  const cache = path.join(work, '.cache')
  const homes = path.join(work, 'homes')
  // A clone with a worktree as the agent's folder (a runner's --workdir may be one; project runs now get a repository of their own).
  const repo = path.join(cache, 'repos', 'abc')
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test' } })
  fs.mkdirSync(repo, { recursive: true })
  git(repo, 'init', '-q', '-b', 'main')
  fs.writeFileSync(path.join(repo, 'README.md'), 'widgets\n')
  git(repo, 'add', '.')
  git(repo, 'commit', '-q', '-m', 'first')
  worktree = path.join(cache, 'worktrees', 'run-1')
  git(repo, 'worktree', 'add', '-q', '--detach', worktree)
  fs.writeFileSync(path.join(cache, 'other-secret.txt'), 'cache secret')
  home = path.join(homes, 'agent-1')
  fs.mkdirSync(home, { recursive: true })
  fs.mkdirSync(path.join(homes, 'agent-2'))
  fs.writeFileSync(path.join(homes, 'agent-2', 'login.json'), 'other agent secret')
  fs.writeFileSync(path.join(work, 'runner.key'), 'svc_live_secret')

  const confinement = await prepareSandbox({
    noSandbox: false, bwrap: 'bwrap', agentNetwork: true, workDir: work, agentRead: [], agentWrite: [work],
    cacheDir: cache, agentHomes: homes, configDir: path.join(work, 'config'), configFile: null, apiKeyFile: path.join(work, 'runner.key'),
  })
  expect(confinement.problem).toBeNull()
  sandbox = confinement.sandbox!
})

describe('sandboxed()', () => {
  it('without a sandbox, leaves the command as it is', () => {
    expect(sandboxed({ sandbox: null, cwd: work, home: work, env: {} }, '/bin/sh', ['-c', 'true'])).toEqual(['/bin/sh', ['-c', 'true']])
  })

  it('shows the worktree and the agent\'s own home inside the hidden cache and homes, writable; hides the rest', () => {
    const { out, code } = inside(`
      ls -a "${path.join(work, '.cache')}"; ls "${path.join(work, 'homes')}"
      cat "${path.join(work, '.cache', 'other-secret.txt')}" "${path.join(work, 'homes', 'agent-2', 'login.json')}"
      echo "key:[$(cat "${path.join(work, 'runner.key')}")]"
      echo changed > README.md && git commit -qam change && echo committed
      echo mine > "$HOME/note" && echo "home written"
      touch /usr/x 2>/dev/null || echo "system read-only"
    `)
    expect(code).toBe(0)
    expect(out).not.toContain('cache secret')
    expect(out).not.toContain('other agent secret')
    expect(out).toMatch(/^agent-1$/m) // its own home, alone in the homes folder
    expect(out).not.toMatch(/^agent-2$/m)
    expect(out).not.toMatch(/^other-secret\.txt$/m)
    expect(out).toContain('key:[]')
    expect(out).toContain('committed')
    expect(out).toContain('home written')
    expect(out).toContain('system read-only')
    expect(fs.readFileSync(path.join(home, 'note'), 'utf8')).toBe('mine\n')
    // The hidden files are untouched outside.
    expect(fs.readFileSync(path.join(work, '.cache', 'other-secret.txt'), 'utf8')).toBe('cache secret')
  })

  it('cuts the network with --agent-network off: only a loopback of its own', () => {
    const offline = { ...sandbox, network: false }
    const [, args] = sandboxed({ sandbox: offline, cwd: work, home, env: {} }, 'true', [])
    expect(args).not.toContain('--share-net')
    expect(inside('cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "', work, offline).out.trim()).toBe('lo')
  })

  it('an agent killed by a signal inside ends bwrap with 128 + its number, read back as the signal', () => {
    const killed = inside('kill -KILL $$')
    expect(killed.code).toBe(137)
    expect(exitThroughSandbox({ code: killed.code, signal: null }, sandbox)).toEqual({ code: null, signal: 'SIGKILL' })
    expect(exitThroughSandbox({ code: 3, signal: null }, sandbox)).toEqual({ code: 3, signal: null })
    // Without a sandbox the exit is the agent's own, whatever its code.
    expect(exitThroughSandbox({ code: 137, signal: null }, null)).toEqual({ code: 137, signal: null })
  })
})
