// The values a URL's search parameters may take, for the routes that validate them.
import type { ApprovalStatus, RunStatus } from '#src/client/types.ts'

export const RUN_STATUSES: readonly RunStatus[] = ['queued', 'running', 'succeeded', 'failed', 'cancelled']
export const APPROVAL_STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'rejected']
