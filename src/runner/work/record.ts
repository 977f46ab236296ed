// After the agent: what it left uncommitted is committed (authored by the agent), the branch's
// changes are recorded (API-DECISIONS.md "Work products") and its patch taken (up to 5 MiB);
// then the branch is pushed to the project's remote when the runner can (pushBranch).
//
// The changes are the branch's against the project's default branch (base_commit is where the
// branch left it): each run shows the whole work under review, which the last run's changes
// and patch then hold. Cost on a repository of 10,000 files and 1,000 commits:
// bench/work-products.ts.
import type { Changes, ChangedFile } from '../../contract/work.ts'
import { CHANGES_LIST_MAX, PATCH_MAX_BYTES } from '../../contract/work.ts'
import type { RepositoryWorkspace } from '../workspace.ts'
import { localGit, localGitHead, localGitOrNull, remoteGit } from './git.ts'

export interface AgentIdentity {
  name: string
  email: string
}

/** The agent's git identity: `Agent Name <agent-id@agents.invalid>`. */
export function agentIdentity(agent: { id: string; name: string }): AgentIdentity {
  // A name git takes as it is: no angle brackets or line breaks.
  const name = agent.name.replace(/[<>\n\r]+/g, ' ').trim() || 'Agent'
  return { name, email: `${agent.id}@agents.invalid` }
}

export const PATCH_CLIPPED_NOTE = (branch: string, head: string) =>
  `\n# Shopfloor: this patch is clipped at 5 MiB. The whole change is on the branch ${branch} (commit ${head}).\n`

export interface RecordedWork {
  /** With `pushed` false: pushBranch says whether it was. */
  changes: Changes
  patch: string
}

/**
 * Commits what the agent left (message from the run's summary), then records the branch's
 * changes and patch. `cwd` is the run's worktree.
 */
export async function recordWork(cwd: string, repo: RepositoryWorkspace, identity: AgentIdentity, summary: string): Promise<RecordedWork> {
  repo.restoreConfig()
  await commitLeftovers(cwd, identity, summary)
  const head = (await localGit(cwd, ['rev-parse', 'HEAD'])).trim()
  // The clone's branch follows the worktree even when the agent switched branches: the next run continues from here.
  await localGit(cwd, ['update-ref', `refs/heads/${repo.branch}`, head])
  const base = repo.defaultRef ? ((await localGitOrNull(cwd, ['merge-base', head, repo.defaultRef])) ?? repo.startCommit) : repo.startCommit

  const [files, commits, patch] = await Promise.all([
    changedFiles(cwd, base, head),
    branchCommits(cwd, base, head),
    localGitHead(cwd, ['diff', '--no-ext-diff', '--no-textconv', '--find-renames', base, head, '--'], PATCH_MAX_BYTES),
  ])
  const changes: Changes = {
    branch: repo.branch,
    base_commit: base,
    head_commit: head,
    pushed: false,
    commits: commits.slice(0, CHANGES_LIST_MAX),
    files: files.slice(0, CHANGES_LIST_MAX),
    additions: files.reduce((sum, f) => sum + f.additions, 0),
    deletions: files.reduce((sum, f) => sum + f.deletions, 0),
  }
  return { changes, patch: patch.clipped ? patch.text + PATCH_CLIPPED_NOTE(repo.branch, head) : patch.text }
}

async function commitLeftovers(cwd: string, identity: AgentIdentity, summary: string): Promise<void> {
  await localGit(cwd, ['add', '--all'])
  const staged = await localGit(cwd, ['diff', '--cached', '--quiet']).then(() => false, () => true)
  if (!staged) return
  const message = summary.trim() || 'Work left by the agent at the end of its run'
  const env = { GIT_AUTHOR_NAME: identity.name, GIT_AUTHOR_EMAIL: identity.email, GIT_COMMITTER_NAME: identity.name, GIT_COMMITTER_EMAIL: identity.email }
  await localGit(cwd, ['commit', '--quiet', '--no-verify', '--cleanup=strip', '-m', message], { env })
}

const STATUS: Record<string, ChangedFile['status']> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', C: 'added', T: 'modified' }

/** Each changed file with its status and +/- lines (binary files count 0), from one `git diff --numstat --name-status` pass each. */
async function changedFiles(cwd: string, base: string, head: string): Promise<ChangedFile[]> {
  if (base === head) return []
  const [numstat, nameStatus] = await Promise.all([
    localGit(cwd, ['diff', '--numstat', '-z', '--find-renames', base, head, '--']),
    localGit(cwd, ['diff', '--name-status', '-z', '--find-renames', base, head, '--']),
  ])
  // --name-status -z: STATUS\0path\0, or for renames and copies STATUS\0old\0new\0.
  const statuses = new Map<string, ChangedFile['status']>()
  const parts = nameStatus.split('\0')
  for (let i = 0; i + 1 < parts.length; ) {
    const code = parts[i][0]
    const path = code === 'R' || code === 'C' ? parts[i + 2] : parts[i + 1]
    statuses.set(path, STATUS[code] ?? 'modified')
    i += code === 'R' || code === 'C' ? 3 : 2
  }
  // --numstat -z: "adds\tdels\tpath\0", or for renames "adds\tdels\t\0old\0new\0".
  const files: ChangedFile[] = []
  const fields = numstat.split('\0')
  for (let i = 0; i < fields.length; ) {
    const line = fields[i]
    if (!line) {
      i++
      continue
    }
    const [adds, dels, inline] = line.split('\t')
    let path = inline
    i++
    if (inline === '') {
      path = fields[i + 1]
      i += 2
    }
    const count = (n: string) => (n === '-' ? 0 : Number(n))
    files.push({ path, status: statuses.get(path) ?? 'modified', additions: count(adds), deletions: count(dels) })
  }
  return files
}

async function branchCommits(cwd: string, base: string, head: string): Promise<Changes['commits']> {
  if (base === head) return []
  const out = await localGit(cwd, ['log', '--format=%H%x00%B%x00', `--max-count=${CHANGES_LIST_MAX}`, `${base}..${head}`, '--'])
  const parts = out.split('\0')
  const commits: Changes['commits'] = []
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const sha = parts[i].trim()
    if (sha) commits.push({ sha, message: parts[i + 1].trim().slice(0, 4000) })
  }
  return commits
}

/** Pushes the branch; null when the remote has it, else why not (the remote's own words, in short). */
export async function pushBranch(cwd: string, repo: RepositoryWorkspace): Promise<string | null> {
  try {
    await remoteGit(cwd, ['push', '--porcelain', 'origin', `HEAD:refs/heads/${repo.branch}`], { allowLocal: repo.allowLocal, timeoutMs: 5 * 60_000 })
    return null
  } catch (err: any) {
    const said = `${err.stdout ?? ''}\n${err.stderr ?? ''}`.split('\n').map((l) => l.trim())
      .filter((l) => l.startsWith('!') || l.startsWith('remote:') || l.startsWith('error:') || l.startsWith('fatal:'))
    return said.length ? said.join('\n').slice(0, 500) : 'git push failed'
  }
}
