// Where an agent process runs. A task in a project with a repository gets a git worktree of
// that repository (a clone kept in the cache folder, fetched before each run), detached at the
// remote's default branch and removed after the run: agents commit and push what they keep.
// Every other run uses the runner's work folder.
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Logger } from 'pino'
import type { RunContext } from '../client/index.ts'

const exec = promisify(execFile)
const GIT_TIMEOUT_MS = 10 * 60_000

export interface Workspace {
  cwd: string
  dispose(): Promise<void>
}

/** One clone or fetch at a time per repository, even with several runs starting together. */
const repositoryLocks = new Map<string, Promise<unknown>>()

export async function prepareWorkspace(context: RunContext, dirs: { workDir: string; cacheDir: string }, log: Logger): Promise<Workspace> {
  const repository = context.project?.repository?.trim()
  if (!repository) return { cwd: dirs.workDir, dispose: async () => {} }

  const clone = join(dirs.cacheDir, 'repos', createHash('sha256').update(repository).digest('hex').slice(0, 16))
  const previous = repositoryLocks.get(clone) ?? Promise.resolve()
  const update = previous.catch(() => undefined).then(() => updateClone(repository, clone, log))
  repositoryLocks.set(clone, update)
  await update

  const worktree = join(dirs.cacheDir, 'worktrees', context.run.id)
  mkdirSync(join(dirs.cacheDir, 'worktrees'), { recursive: true })
  // The remote's default branch; a clone of a repository without one has only its HEAD.
  const start = await git(clone, 'rev-parse', '--verify', '--quiet', 'origin/HEAD').then(() => 'origin/HEAD', () => 'HEAD')
  await git(clone, 'worktree', 'add', '--detach', worktree, start)
  return {
    cwd: worktree,
    async dispose() {
      await git(clone, 'worktree', 'remove', '--force', worktree).catch((err) =>
        log.warn({ err: err.message, worktree }, 'could not remove the worktree'),
      )
    },
  }
}

async function updateClone(repository: string, clone: string, log: Logger): Promise<void> {
  if (!existsSync(join(clone, '.git'))) {
    mkdirSync(clone, { recursive: true })
    await exec('git', ['clone', '--no-checkout', repository, clone], { timeout: GIT_TIMEOUT_MS })
    return
  }
  // A failed fetch (server down) still leaves a usable, if older, clone.
  await git(clone, 'fetch', '--prune', 'origin').catch((err) => log.warn({ err: err.message, repository }, 'git fetch failed; using the cached clone'))
}

function git(cwd: string, ...args: string[]) {
  return exec('git', ['-C', cwd, ...args], { timeout: GIT_TIMEOUT_MS })
}
