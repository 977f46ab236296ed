import { type Static, Type } from 'typebox'
import { OrNull, StringEnum } from './common.ts'

// What a run of a task in a project with a repository leaves to review (API-DECISIONS.md
// "Work products"): the changes on its branch, and the results of the project's checks.

/** A project's check: a named command run in the run's worktree after the agent. */
export const CHECK_COMMAND_MAX_CHARS = 2000
export const CHECK_TIMEOUT_DEFAULT_SECONDS = 600
export const CheckInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 60 }),
  command: Type.String({ minLength: 1, maxLength: CHECK_COMMAND_MAX_CHARS }),
  timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
})
export const Check = Type.Object({ name: Type.String(), command: Type.String(), timeout_seconds: Type.Integer() })
export type Check = Static<typeof Check>
export type CheckInput = Static<typeof CheckInput>
export const Checks = Type.Array(CheckInput, { maxItems: 20 })

/** A git branch name as `git check-ref-format --branch` takes it, without what reads as an option. */
export const BranchName = Type.String({
  minLength: 1, maxLength: 200, pattern: '^(?!.*\\.\\.)(?!.*//)(?!.*@\\{)(?!.*\\.lock$)[A-Za-z0-9_][A-Za-z0-9._/-]*(?<![./])$',
})

export const FILE_STATUSES = ['added', 'modified', 'deleted', 'renamed'] as const
export const ChangedFile = Type.Object({
  path: Type.String(),
  status: StringEnum(FILE_STATUSES),
  additions: Type.Integer({ minimum: 0 }),
  deletions: Type.Integer({ minimum: 0 }),
})
export type ChangedFile = Static<typeof ChangedFile>

/** Lists at most this many files and commits (the totals count every one; the patch has them all). */
export const CHANGES_LIST_MAX = 2000

export const Changes = Type.Object({
  branch: Type.String({ maxLength: 300 }),
  base_commit: Type.String({ maxLength: 64 }),
  head_commit: Type.String({ maxLength: 64 }),
  pushed: Type.Boolean(),
  commits: Type.Array(Type.Object({ sha: Type.String({ maxLength: 64 }), message: Type.String({ maxLength: 4000 }) }), { maxItems: CHANGES_LIST_MAX }),
  files: Type.Array(ChangedFile, { maxItems: CHANGES_LIST_MAX }),
  additions: Type.Integer({ minimum: 0 }),
  deletions: Type.Integer({ minimum: 0 }),
})
export type Changes = Static<typeof Changes>

export const CHECK_STATUSES = ['passed', 'failed', 'timed_out', 'skipped'] as const
export const CHECK_OUTPUT_TAIL_CHARS = 4000
export const CheckResult = Type.Object({
  name: Type.String({ maxLength: 60 }),
  status: StringEnum(CHECK_STATUSES),
  exit_code: OrNull(Type.Integer()),
  duration_ms: Type.Integer({ minimum: 0 }),
  output_tail: Type.String({ maxLength: CHECK_OUTPUT_TAIL_CHARS }),
})
export type CheckResult = Static<typeof CheckResult>

/** Whether a run's checks let its work move on: every check passed (none recorded: not applicable). */
export function checksPassed(checks: readonly CheckResult[] | null | undefined): boolean {
  return !!checks && checks.every((c) => c.status === 'passed')
}

/** The first check that did not pass, or null. */
export function failingCheck(checks: readonly CheckResult[] | null | undefined): CheckResult | null {
  return checks?.find((c) => c.status === 'failed' || c.status === 'timed_out') ?? null
}

/** A patch is kept up to this size; beyond, it is clipped and says so (PATCH_CLIPPED_NOTE). */
export const PATCH_MAX_BYTES = 5 * 1024 * 1024
export const PatchUploadBody = Type.Object({
  runner_id: Type.String({ minLength: 1, maxLength: 100 }),
  patch: Type.String({ maxLength: PATCH_MAX_BYTES + 1000 }),
})

export const REVIEW_DECISIONS = ['approve', 'request_changes'] as const
export const ReviewDecision = StringEnum(REVIEW_DECISIONS)
export type ReviewDecision = Static<typeof ReviewDecision>
export const ReviewBody = Type.Object({
  decision: ReviewDecision,
  comment: Type.Optional(OrNull(Type.String({ maxLength: 1024 * 1024 }))),
})
export type ReviewRequest = Static<typeof ReviewBody>
