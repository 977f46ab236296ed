// A `merge` run (the project's merge_on_approve, after a review approved the task): instead of
// starting the agent, the runner merges the task's branch into the project's default branch in
// the run's worktree and pushes it. A conflict or a push the remote refuses is never silent: the
// reply begins with BLOCKED:, so the task goes to `blocked` with a `question` comment for a person.
import type { RunContext } from '../../client/index.ts'
import type { AdapterResult } from '../adapters/adapter.ts'
import type { RepositoryWorkspace } from '../workspace.ts'
import { localGit } from './git.ts'
import { agentIdentity, pushBranch } from './record.ts'

export async function mergeApproved(context: RunContext, cwd: string, repo: RepositoryWorkspace | null): Promise<AdapterResult> {
  const target = context.project?.default_branch ?? 'main'
  if (!repo || !repo.defaultRef) {
    return { ok: true, reply: `BLOCKED: The branch could not be merged: the repository has no branch ${target} to merge into.`, error: null }
  }
  repo.restoreConfig()
  const { name, email } = agentIdentity(context.agent)
  const env = { GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, GIT_COMMITTER_NAME: name, GIT_COMMITTER_EMAIL: email }
  await localGit(cwd, ['checkout', '--quiet', '--detach', repo.defaultRef])
  const message = `Merge ${repo.branch} into ${target}: ${context.task?.title ?? ''}`.trim()
  try {
    await localGit(cwd, ['merge', '--no-ff', '--no-verify', '--quiet', '-m', message, repo.startCommit], { env })
  } catch {
    const conflicted = (await localGit(cwd, ['diff', '--name-only', '--diff-filter=U']).catch(() => '')).split('\n').filter(Boolean)
    await localGit(cwd, ['merge', '--abort']).catch(() => undefined)
    return {
      ok: true,
      reply: `BLOCKED: Merging ${repo.branch} into ${target} conflicts${conflicted.length ? ` in ${conflicted.slice(0, 20).join(', ')}` : ''}. ` +
        `Resolve it on the branch (or merge it by hand) and approve again.`,
      error: null,
    }
  }
  const head = (await localGit(cwd, ['rev-parse', 'HEAD'])).trim()
  const refused = await pushBranch(cwd, { ...repo, branch: target })
  if (refused) return { ok: true, reply: `BLOCKED: ${repo.branch} was merged into ${target} here, but the remote refused the push:\n${refused}`, error: null }
  return { ok: true, reply: `Merged ${repo.branch} into ${target} (commit ${head}).`, error: null }
}
