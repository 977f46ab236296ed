// Server state as TanStack queries. Company data lives under ['c', companyId, <resource>, ...]
// so the live stream (live.ts) can mark a resource stale with one key prefix.
import { type QueryClient, type UseQueryResult, useQueries, useQuery, useQueryClient } from '@tanstack/react-query'
import type { Agent, ApprovalStatus, DocumentListQuery, Run, RunFilters, Task, TaskFilters, TaskStatus } from '#src/client/types.ts'
import { api } from './api.ts'
import { errorCode } from './errors.ts'

// A safety net under the live stream: lists refetch now and then even without events.
const POLL_MS = 60_000

export const keys = {
  company: (cid: string, ...rest: unknown[]) => ['c', cid, ...rest] as const,
}

export const useMe = (enabled = true) => useQuery({ queryKey: ['me'], queryFn: () => api.me.get(), staleTime: 60_000, enabled })
export const useCompanies = () => useQuery({ queryKey: ['companies'], queryFn: () => api.companies.list() })
export const useAuthConfig = () => useQuery({ queryKey: ['auth-config'], queryFn: () => api.auth.config(), staleTime: Infinity })
export const useApiKeys = () => useQuery({ queryKey: ['api-keys'], queryFn: () => api.apiKeys.list() })

export const useCompany = (cid: string) =>
  useQuery({ queryKey: keys.company(cid, 'company'), queryFn: () => api.companies.get(cid) })
export const useMembers = (cid: string) =>
  useQuery({ queryKey: keys.company(cid, 'company', 'members'), queryFn: () => api.companies.members(cid) })

export const useAgents = (cid: string, includeTerminated = false) =>
  useQuery({
    queryKey: keys.company(cid, 'agents', { includeTerminated }),
    queryFn: () => api.agents.list(cid, includeTerminated ? { include_terminated: true } : {}),
    refetchInterval: POLL_MS,
  })
/** An item already held in a cached list, shown while its own request is on the way. */
function fromLists<T>(client: QueryClient, prefix: readonly unknown[], match: (item: T) => boolean): T | undefined {
  for (const [, data] of client.getQueriesData<T[]>({ queryKey: prefix })) {
    const found = Array.isArray(data) ? data.find(match) : undefined
    if (found) return found
  }
  return undefined
}

export function useAgent(cid: string, id: string) {
  const client = useQueryClient()
  return useQuery({
    queryKey: keys.company(cid, 'agents', id),
    queryFn: () => api.agents.get(cid, id),
    placeholderData: () => fromLists<Agent>(client, keys.company(cid, 'agents'), (a) => a.id === id),
  })
}
export const useOrg = (cid: string) => useQuery({ queryKey: keys.company(cid, 'org'), queryFn: () => api.agents.org(cid) })

export const useTasks = (cid: string, filters: TaskFilters = {}, enabled = true) =>
  useQuery({ queryKey: keys.company(cid, 'tasks', 'list', filters), queryFn: () => api.tasks.list(cid, filters), refetchInterval: POLL_MS, enabled })

/** Cards per column of the board: the newest of each status, however many the company has. */
const BOARD_COLUMN_LIMIT = 100

/** The board's columns as one list of tasks, and the statuses that have more than a column shows. */
interface BoardTasks {
  tasks: Task[] | undefined
  more: Set<TaskStatus>
  error: Error | null
  refetch: () => void
}

const board = (statuses: TaskStatus[]) => (results: UseQueryResult<Task[]>[]): BoardTasks => {
  const seen = new Set<string>()
  const tasks = results.every((r) => r.data)
    ? results.flatMap((r) => r.data!).filter((t) => !seen.has(t.id) && seen.add(t.id))
    : undefined
  return {
    tasks,
    more: new Set(statuses.filter((_, i) => results[i].data?.length === BOARD_COLUMN_LIMIT)),
    error: results.find((r) => r.error)?.error ?? null,
    refetch: () => results.forEach((r) => void r.refetch()),
  }
}

/**
 * The board's tasks: each status asked for apart (the newest BOARD_COLUMN_LIMIT), so that every
 * column holds its own newest tasks rather than its share of one page of the whole list (in a
 * large company, mostly one status). A card moved by useMoveTask shows in its new column at once,
 * as the columns are one list split by status.
 */
export const useBoardTasks = (cid: string, filters: TaskFilters, statuses: TaskStatus[], enabled: boolean) =>
  useQueries({
    queries: statuses.map((status) => {
      const columnFilters = { ...filters, status: [status], limit: BOARD_COLUMN_LIMIT }
      return { queryKey: keys.company(cid, 'tasks', 'list', columnFilters), queryFn: () => api.tasks.list(cid, columnFilters), refetchInterval: POLL_MS, enabled }
    }),
    combine: board(statuses),
  })

/** The status whose board column a cached query (by its key) holds, or null for any other query. */
export function boardColumn(key: readonly unknown[]): TaskStatus | null {
  const filters = key[2] === 'tasks' && key[3] === 'list' ? (key[4] as TaskFilters | undefined) : undefined
  return filters?.limit === BOARD_COLUMN_LIMIT && Array.isArray(filters.status) && filters.status.length === 1 ? filters.status[0] : null
}
export function useTask(cid: string, ref: string) {
  const client = useQueryClient()
  return useQuery({
    queryKey: keys.company(cid, 'tasks', 'one', ref),
    queryFn: () => api.tasks.get(cid, ref),
    enabled: ref !== '',
    placeholderData: () => fromLists<Task>(client, keys.company(cid, 'tasks', 'list'), (t) => t.id === ref || t.key === ref.toUpperCase()),
  })
}
export const useComments = (cid: string, taskId: string, enabled = true) =>
  useQuery({ queryKey: keys.company(cid, 'comments', taskId), queryFn: () => api.comments.list(cid, taskId), enabled })

export const useGoals = (cid: string) => useQuery({ queryKey: keys.company(cid, 'goals'), queryFn: () => api.goals.list(cid) })
export const useProjects = (cid: string) => useQuery({ queryKey: keys.company(cid, 'projects'), queryFn: () => api.projects.list(cid) })
export const useRoutines = (cid: string) => useQuery({ queryKey: keys.company(cid, 'routines'), queryFn: () => api.routines.list(cid) })

export const useRuns = (cid: string, filters: RunFilters = {}) =>
  useQuery({ queryKey: keys.company(cid, 'runs', 'list', filters), queryFn: () => api.runs.list(cid, filters), refetchInterval: POLL_MS })
// A live run also polls now and then, so its transcript keeps growing even with the stream down.
const LIVE_RUN_POLL_MS = 5_000

/**
 * A run with its transcript (the last 2,000 entries of a long one, from `transcript_from` on).
 * Fetched again after every report of a live run, it asks only for the entries it does not hold
 * yet (`transcript_from`) and adds them to those it has: a long run's transcript is hundreds of
 * KB. Should the answer not continue what it holds (trimmed by retention meanwhile, or more than
 * 2,000 new entries, which leave a gap), the run is fetched afresh.
 */
async function fetchRun(client: QueryClient, cid: string, id: string): Promise<Run> {
  const held = client.getQueryData<Run>(keys.company(cid, 'runs', 'one', id))
  const entries = held?.transcript ?? []
  if (!held || entries.length === 0) return api.runs.get(cid, id)
  const end = (held.transcript_from ?? 0) + entries.length
  const run = await api.runs.get(cid, id, { transcript_from: end })
  const added = run.transcript ?? []
  const continues = run.transcript_from === end && run.transcript_count === end + added.length
  return continues ? { ...run, transcript_from: held.transcript_from, transcript: [...entries, ...added] } : api.runs.get(cid, id)
}
export function useRun(cid: string, id: string, enabled = true) {
  const client = useQueryClient()
  return useQuery({
    queryKey: keys.company(cid, 'runs', 'one', id),
    queryFn: () => fetchRun(client, cid, id),
    enabled,
    refetchInterval: (query) => (query.state.data && ['queued', 'running'].includes(query.state.data.status) ? LIVE_RUN_POLL_MS : false),
  })
}

// Runners are not on the event stream (the server notes them at most every few seconds): a short poll.
export const useRunners = (cid: string) =>
  useQuery({ queryKey: keys.company(cid, 'runners'), queryFn: () => api.runners.list(cid), refetchInterval: 5_000 })

export const useApprovals = (cid: string, status?: ApprovalStatus) =>
  useQuery({ queryKey: keys.company(cid, 'approvals', status ?? 'all'), queryFn: () => api.approvals.list(cid, status ? { status } : {}) })
export const useInbox = (cid: string) =>
  useQuery({ queryKey: keys.company(cid, 'inbox'), queryFn: () => api.insights.inbox(cid), refetchInterval: POLL_MS })
export const useDashboard = (cid: string, days: 7 | 14 | 30) =>
  useQuery({ queryKey: keys.company(cid, 'dashboard', days), queryFn: () => api.insights.dashboard(cid, { days }), refetchInterval: POLL_MS })
export const useCosts = (cid: string, month: string) =>
  useQuery({ queryKey: keys.company(cid, 'costs', month), queryFn: () => api.insights.costs(cid, { month }) })

// Webhooks are not on the event stream (a delivery is not an event): the list refetches now and
// then, and an open delivery log every few seconds, so attempts and retries show as they happen.
export const useWebhooks = (cid: string, enabled = true) =>
  useQuery({ queryKey: keys.company(cid, 'webhooks'), queryFn: () => api.webhooks.list(cid), enabled, refetchInterval: 15_000 })
export const useDeliveries = (cid: string, webhookId: string, enabled = true) =>
  useQuery({
    queryKey: keys.company(cid, 'webhooks', webhookId, 'deliveries'),
    queryFn: () => api.webhooks.deliveries(cid, webhookId, { limit: 20 }),
    enabled,
    // A webhook deleted meanwhile (elsewhere) has no log to poll: its 404 ends the polling.
    refetchInterval: (query) => (errorCode(query.state.error) === 'NOT_FOUND' ? false : 3_000),
  })
export const useTemplates = () => useQuery({ queryKey: ['templates'], queryFn: () => api.companies.templates(), staleTime: Infinity })
// A task's own audit events (status and assignee changes on its timeline); every live event
// marks the activity stale (stale.ts), so they follow changes as they happen.
export const useTaskChanges = (cid: string, taskId: string) =>
  useQuery({
    queryKey: keys.company(cid, 'activity', 'task', taskId),
    queryFn: () => api.insights.activity(cid, { entity_type: 'task', entity_id: taskId, limit: 200 }),
  })

// Knowledge: documents (list and search, one with its versions) and skills.
export const useDocuments = (cid: string, query: DocumentListQuery = {}) =>
  useQuery({ queryKey: keys.company(cid, 'documents', 'list', query), queryFn: () => api.documents.list(cid, query), placeholderData: (previous) => previous })
export const useDocument = (cid: string, id: string | null) =>
  useQuery({ queryKey: keys.company(cid, 'documents', id), queryFn: () => api.documents.get(cid, id!), enabled: id !== null })
export const useDocumentVersions = (cid: string, id: string | null) =>
  useQuery({ queryKey: keys.company(cid, 'documents', id, 'versions'), queryFn: () => api.documents.versions(cid, id!), enabled: id !== null })
export const useSkills = (cid: string) => useQuery({ queryKey: keys.company(cid, 'skills'), queryFn: () => api.skills.list(cid) })
