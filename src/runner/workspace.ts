// Where an agent process runs. A task in a project with a repository gets a repository of its
// own, made from a clone kept in the cache folder (fetched before each run), on the task's branch
// `shopfloor/<TASK-KEY>`: a later run of the task continues the branch, two runs never share a
// working tree, and what the agent leaves is committed, recorded and pushed after it
// (work/record.ts). The run's repository is self-contained (its .git inside its folder), so an
// agent confined to its working folder still has all of git, and nothing it writes there (its
// config, hooks, objects) reaches the clone or other runs. It is removed after the run; the
// branch stays in the clone and on the remote. Every other run uses the runner's work folder.
//
// The project's repository comes from the server, which any member of the company may set: it
// is checked again here (contract/repository.ts), given to git after `--`, and a file://
// address is cloned only with --allow-local-repositories. A clone that fails says only that it
// failed and the address: what answered (an open port, a refused one) stays in the runner's log.
import { createHash } from 'node:crypto'
import { constants, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { copyFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from 'pino'
import type { RunContext } from '../client/index.ts'
import { isLocalRepository, repositoryProblem } from '../contract/repository.ts'
import { localGit, localGitOrNull, remoteGit } from './work/git.ts'

export interface Workspace {
  cwd: string
  /** Set for a task's run in a project with a repository (its branch, the clone, the remote). */
  repository: RepositoryWorkspace | null
  dispose(): Promise<void>
}

export interface RepositoryWorkspace {
  address: string
  allowLocal: boolean
  /** The cached clone the run's repository was made from (the branch goes back to it after the run). */
  clone: string
  branch: string
  /** The project's default branch on the remote, as `origin/<name>`, or null when the remote has none. */
  defaultRef: string | null
  /** The branch's commit when the run started. */
  startCommit: string
  /** Puts the run repository's configuration back as it was before the agent (git.ts). */
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
  const run = join(dirs.cacheDir, 'worktrees', context.run.id)
  mkdirSync(run, { recursive: true })
  // Removed off the event loop: a worktree of 10,000 files took 130 ms to remove on a quiet
  // machine, time in which the runner's other runs would go unread (their spend limits too).
  const dispose = () => rm(run, { recursive: true, force: true })
  try {
    const defaultBranch = context.project?.default_branch ?? 'main'
    const defaultRef = (await localGitOrNull(clone, ['rev-parse', '--verify', '--quiet', `refs/remotes/origin/${defaultBranch}`])) !== null
      ? `origin/${defaultBranch}`
      : (await localGitOrNull(clone, ['rev-parse', '--verify', '--quiet', 'refs/remotes/origin/HEAD'])) !== null ? 'origin/HEAD' : null
    const branch = context.task ? `shopfloor/${context.task.key}` : null
    const start = await branchStart(clone, branch, defaultRef)
    if (!start) throw new Error(`the repository ${address} has no commits to start from`)
    await ownRepository(run, clone, address, branch)
    // No task, no branch of its own: the default branch, detached.
    await localGit(run, branch ? ['checkout', '--quiet', '-B', branch, start] : ['checkout', '--quiet', '--detach', start])
    const startCommit = (await localGit(run, ['rev-parse', 'HEAD'])).trim()
    const gitDir = join(run, '.git')
    const configFile = join(gitDir, 'config')
    const config = readFileSync(configFile)
    const restoreConfig = () => {
      // What the agent could leave to point the runner's git elsewhere: `.git` replaced by a
      // file (`gitdir: ...`) or a link, a `commondir` (git then reads the config, hooks and refs
      // of the folder it names), a worktree config, a config that is a link (written through,
      // the runner would overwrite the file it names).
      if (!lstatSync(gitDir, { throwIfNoEntry: false })?.isDirectory()) {
        throw new Error("the run's repository has no .git folder any more: the agent removed or replaced it")
      }
      for (const name of ['commondir', 'config.worktree', 'config']) rmSync(join(gitDir, name), { recursive: true, force: true })
      writeFileSync(configFile, config, { flag: 'wx' })
    }
    return {
      cwd: run,
      repository: branch ? { address, allowLocal, clone, branch, defaultRef, startCommit, restoreConfig } : null,
      dispose,
    }
  } catch (err) {
    await dispose()
    throw err
  }
}

/**
 * The run's own repository in `run`: its objects and refs copied from the cached clone (no
 * hardlinks, no alternates: nothing the agent does there reaches the clone or another run), the
 * remote's branches as `origin/*`, the task's branch if the clone has one, and `origin` pointing
 * at the project's remote for the push.
 */
async function ownRepository(run: string, clone: string, address: string, branch: string | null): Promise<void> {
  await localGit(run, ['init', '--quiet'])
  await copyPacks(clone, run)
  const hasBranch = branch && (await localGitOrNull(clone, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])) !== null
  await localGit(run, ['-c', 'protocol.file.allow=always', 'fetch', '--quiet', '--no-tags', '--', clone,
    '+refs/remotes/origin/*:refs/remotes/origin/*', ...(hasBranch ? [`+refs/heads/${branch}:refs/heads/${branch}`] : [])])
  await localGit(run, ['remote', 'add', 'origin', address])
}

/**
 * Copies the clone's pack files into the run's repository before the fetch, which then finds
 * the objects there and only writes refs: a fetch alone packs the whole history again (about
 * 2 s of CPU for 10,000 files and 1,000 commits; the copy takes 0.1 s). Copies, never links, so
 * the agent's repository shares no file with the clone. A pack removed meanwhile (git gc in the
 * clone for another run) is skipped with its index: the fetch brings what is missing.
 */
async function copyPacks(clone: string, run: string): Promise<void> {
  const from = join(clone, '.git', 'objects', 'pack')
  const to = join(run, '.git', 'objects', 'pack')
  let names: string[]
  try {
    names = readdirSync(from)
  } catch {
    return
  }
  for (const pack of names.filter((n) => n.endsWith('.pack'))) {
    const files = [pack, pack.replace(/\.pack$/, '.idx')]
    try {
      for (const file of files) await copyFile(join(from, file), join(to, file), constants.COPYFILE_FICLONE)
    } catch {
      for (const file of files) await rm(join(to, file), { force: true })
    }
  }
}

/**
 * Where the task's branch continues from: the newer of the remote's branch and the clone's own
 * (a push that failed last time leaves the clone ahead), else the default branch.
 */
async function branchStart(clone: string, branch: string | null, defaultRef: string | null): Promise<string | null> {
  if (!branch) return defaultRef ?? (await localGitOrNull(clone, ['rev-parse', '--verify', '--quiet', 'HEAD']))
  const remote = await localGitOrNull(clone, ['rev-parse', '--verify', '--quiet', `refs/remotes/origin/${branch}`])
  const local = await localGitOrNull(clone, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])
  if (remote && local) {
    const localHasRemote = await localGit(clone, ['merge-base', '--is-ancestor', remote, local]).then(() => true, () => false)
    return localHasRemote ? local : remote
  }
  return remote ?? local ?? defaultRef ?? (await localGitOrNull(clone, ['rev-parse', '--verify', '--quiet', 'HEAD']))
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
