// The runner's part of verified work, between the agent's end and the run's final report: the
// agent's work committed, recorded and pushed (record.ts), the run's `changes` and patch sent
// to the server, then the project's checks (checks.ts) when the agent succeeded. Whatever goes
// wrong here is said in the transcript and leaves the run's own outcome as it was, except that
// work whose checks did not pass never goes to review.
import type { RunContext } from '../../client/index.ts'
import type { CheckResult, RunReport } from '../../client/types.ts'
import { failingCheck } from '../../contract/work.ts'
import type { Sandbox } from '../sandbox.ts'
import type { RepositoryWorkspace } from '../workspace.ts'
import { runChecks } from './checks.ts'
import { agentIdentity, pushBranch, recordWork } from './record.ts'

export interface AfterAgentInput {
  context: RunContext
  cwd: string
  repository: RepositoryWorkspace
  home: string
  env: Record<string, string>
  /** The sandbox the agent ran in: its checks run in the same (null: none, --no-sandbox). */
  sandbox: Sandbox | null
  /** The agent finished its work (exit 0, not stopped). */
  agentSucceeded: boolean
  summary: string
  allowChecks: boolean
  killAfterMs: number
  signal: AbortSignal
  report(body: Pick<RunReport, 'changes' | 'checks'>): Promise<unknown>
  uploadPatch(patch: string): Promise<unknown>
  note(text: string): void
}

/**
 * `passed`: null when no checks ran (none, or the agent failed); else whether none failed or
 * timed out (a skipped check leaves the decision to the reviewer and to require_checks).
 */
export async function afterAgent(input: AfterAgentInput): Promise<{ checks: CheckResult[]; passed: boolean | null }> {
  const { repository: repo } = input
  try {
    const work = await recordWork(input.cwd, repo, agentIdentity(input.context.agent), input.summary)
    const pushError = await pushBranch(input.cwd, repo)
    const changes = { ...work.changes, pushed: pushError === null }
    input.note(`Changes on ${changes.branch}: ${changes.commits.length} commit(s), ${changes.files.length} file(s), +${changes.additions} -${changes.deletions}` +
      ` (${changes.base_commit.slice(0, 12)}..${changes.head_commit.slice(0, 12)}).\n`)
    if (pushError) input.note(`The branch ${changes.branch} was not pushed to ${repo.address}:\n${pushError}\n`)
    await input.report({ changes })
    if (work.patch) await input.uploadPatch(work.patch)
  } catch (err: any) {
    input.note(`Could not record the run's changes: ${err.message}\n`)
  }
  if (!input.agentSucceeded) return { checks: [], passed: null }
  const checks = await runChecks({
    context: input.context, cwd: input.cwd, home: input.home, env: input.env, sandbox: input.sandbox, allowed: input.allowChecks,
    killAfterMs: input.killAfterMs, signal: input.signal, note: input.note,
  })
  if (!checks.length) return { checks, passed: null }
  await input.report({ checks })
  return { checks, passed: failingCheck(checks) === null }
}
