// Where an agent process runs. A task in a project with a repository gets a worktree of its own
// of that repository (a clone kept in the cache folder, fetched before each run) on the task's
// branch `shopfloor/<TASK-KEY>`: a later run of the task continues the branch, two runs never
// share a working tree, and what the agent leaves is committed, recorded and pushed after it
// (work/record.ts). The worktree is removed after the run; the branch stays in the clone.
// Every other run uses the runner's work folder.
//
// The project's repository comes from the server, which any member of the company may set: it
// is checked again here (contract/repository.ts), given to git after `--`, and a file://
// address is cloned only with --allow-local-repositories. A clone that fails says only that it
// failed and the address: what answered (an open port, a refused one) stays in the runner's log.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Logger } from 'pino'
import type { RunContext } from '../client/index.ts'
import { isLocalRepository, repositoryProblem } from '../contract/repository.ts'
import { localGit, localGitOrNull, remoteGit } from './work/git.ts'

export interface Workspace {
  cwd: string
  /** Set for a task's worktree of its project's repository. */
  repository: RepositoryWorkspace | null
  dispose(): Promise<void>
}

export interface RepositoryWorkspace {
  address: string
  allowLocal: boolean
  /** The shared clone the worktree belongs to. */
  clone: string
  branch: string
  /** The project's default branch on the remote, as `origin/<name>`, or null when the remote has none. */
  defaultRef: string | null
  /** The branch's commit when the run started. */
  startCommit: string
  /** Puts the clone's configuration back as it was before the agent (git.ts). */
  restoreConfig(): void
}

/** One clone or fetch at a time per repository, even with several runs starting together. */
const repositoryLocks = new Map<string, Promise<unknown>>()

export async function prepareWorkspace(
  context: RunContext,
  dirs: { workDir: string; cacheDir: string; allowLocalRepositories?: boolean },
  log: Logger,
): Promise<Workspace> {
  const address = context.project?.repository?.trim()
  if (!address) return { cwd: dirs.workDir, repository: null, dispose: async () => {} }
  const allowLocal = dirs.allowLocalRepositories === true
  const problem = repositoryProblem(address, allowLocal)
  if (problem) {
    throw new Error(isLocalRepository(address) && !allowLocal
      ? `the repository ${address} is on this machine, and this runner was not started with --allow-local-repositories`
      : `the repository ${address} is not one a runner clones: it ${problem}`)
  }

  const clone = join(dirs.cacheDir, 'repos', createHash('sha256').update(address).digest('hex').slice(0, 16))
  const previous = repositoryLocks.get(clone) ?? Promise.resolve()
  const update = previous.catch(() => undefined).then(() => updateClone(address, clone, allowLocal, log))
  repositoryLocks.set(clone, update)
  await update
  const configFile = join(clone, '.git', 'config')
  const config = readFileSync(configFile)
  const restoreConfig = () => writeFileSync(configFile, config)

  const worktree = join(dirs.cacheDir, 'worktrees', context.run.id)
  mkdirSync(join(dirs.cacheDir, 'worktrees'), { recursive: true })
  const defaultBranch = context.project?.default_branch ?? 'main'
  const defaultRef = (await localGitOrNull(clone, ['rev-parse', '--verify', '--quiet', `refs/remotes/origin/${defaultBranch}`])) !== null
    ? `origin/${defaultBranch}`
    : (await localGitOrNull(clone, ['rev-parse', '--verify', '--quiet', 'refs/remotes/origin/HEAD'])) !== null ? 'origin/HEAD' : null
  if (!context.task) {
    // No task, no branch of its own: the default branch, detached, as before.
    await localGit(clone, ['worktree', 'add', '--detach', '--', worktree, defaultRef ?? 'HEAD'])
    return { cwd: worktree, repository: null, dispose: () => removeWorktree(clone, worktree, log) }
  }

  const branch = `shopfloor/${context.task.key}`
  const start = await branchStart(clone, branch, defaultRef)
  if (!start) throw new Error(`the repository ${address} has no commits to start from`)
  // -B with --force: the branch may be checked out by another run's worktree of the same task.
  await localGit(clone, ['worktree', 'add', '--force', '-B', branch, '--', worktree, start])
  const startCommit = (await localGit(worktree, ['rev-parse', 'HEAD'])).trim()
  return {
    cwd: worktree,
    repository: { address, allowLocal, clone, branch, defaultRef, startCommit, restoreConfig },
    dispose: () => removeWorktree(clone, worktree, log),
  }
}

/**
 * Where the task's branch continues from: the newer of the remote's branch and the clone's own
 * (a push that failed last time leaves the clone ahead), else the default branch.
 */
async function branchStart(clone: string, branch: string, defaultRef: string | null): Promise<string | null> {
  const remote = await localGitOrNull(clone, ['rev-parse', '--verify', '--quiet', `refs/remotes/origin/${branch}`])
  const local = await localGitOrNull(clone, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])
  if (remote && local) {
    const localHasRemote = await localGit(clone, ['merge-base', '--is-ancestor', remote, local]).then(() => true, () => false)
    return localHasRemote ? local : remote
  }
  return remote ?? local ?? defaultRef ?? (await localGitOrNull(clone, ['rev-parse', '--verify', '--quiet', 'HEAD']))
}

async function removeWorktree(clone: string, worktree: string, log: Logger): Promise<void> {
  await localGit(clone, ['worktree', 'remove', '--force', worktree]).catch((err) =>
    log.warn({ err: err.message, worktree }, 'could not remove the worktree'),
  )
}

async function updateClone(address: string, clone: string, allowLocal: boolean, log: Logger): Promise<void> {
  if (!existsSync(join(clone, '.git'))) {
    mkdirSync(clone, { recursive: true })
    try {
      await remoteGit(null, ['clone', '--no-checkout', '--', address, clone], { allowLocal })
    } catch (err: any) {
      log.warn({ err: err.message, repository: address }, 'git clone failed')
      throw new Error(`could not clone ${address}`)
    }
    return
  }
  // A failed fetch (server down) still leaves a usable, if older, clone.
  await remoteGit(clone, ['fetch', '--prune', 'origin'], { allowLocal }).catch((err) =>
    log.warn({ err: err.message, repository: address }, 'git fetch failed; using the cached clone'))
}
