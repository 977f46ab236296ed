// Which cached queries a live event makes stale.
import type { QueryClient } from '@tanstack/react-query'
import type { LiveEvent } from '#src/client/types.ts'

// What each entity's events make stale, as query-key segments under ['c', companyId, ...].
// Counts and statuses show up in several places (dashboard, inbox, agent cards), hence the spread;
// lists of runs name their runs' tasks (key and title), so a task's events refetch them too.
const STALE: Record<string, string[]> = {
  company: ['company', 'dashboard', 'costs'],
  agent: ['agents', 'org', 'dashboard', 'costs', 'inbox'],
  task: ['tasks', 'dashboard', 'inbox', 'goals', 'runs'],
  goal: ['goals', 'tasks'],
  project: ['projects', 'costs'],
  routine: ['routines'],
  run: ['runs', 'agents', 'org', 'dashboard', 'inbox', 'costs', 'tasks'],
  approval: ['approvals', 'inbox', 'dashboard', 'agents', 'org'],
  document: ['documents'],
  skill: ['skills', 'agents'],
}

/** The query keys an event of `companyId` makes stale. */
function staleKeys(companyId: string, event: LiveEvent): string[][] {
  const [entity, verb] = event.type.split('.')
  const keys = new Set(STALE[entity] ?? [])
  keys.add('activity') // every change writes an audit event
  if (entity === 'task' && verb === 'commented') keys.add('comments')
  return [...(entity === 'company' ? [['companies']] : []), ...[...keys].map((key) => ['c', companyId, key])]
}

/**
 * How long events are gathered before the queries they make stale are fetched again. A claim
 * publishes three events at once and a busy company many a second: invalidated event by event,
 * a shown query was fetched once per event (each new fetch cancelled the one before in the
 * browser, not on the server). Gathered, it is fetched once per window.
 */
export const GATHER_MS = 150

/**
 * Marks stale (so refetches, where shown) what live events concern, the events of GATHER_MS
 * gathered into one invalidation per query.
 */
export function staleGatherer(client: QueryClient): { add(companyId: string, event: LiveEvent): void; stop(): void } {
  const pending = new Map<string, string[]>() // serialised query key -> query key
  let timer: ReturnType<typeof setTimeout> | null = null
  const flush = () => {
    timer = null
    const keys = [...pending.values()]
    pending.clear()
    const holding = held(client)
    for (const queryKey of keys) if (!holding.has(queryKey.join('/'))) void client.invalidateQueries({ queryKey })
  }
  return {
    add(companyId, event) {
      for (const queryKey of staleKeys(companyId, event)) pending.set(queryKey.join('/'), queryKey)
      timer ??= setTimeout(flush, GATHER_MS)
    },
    stop() {
      if (timer) clearTimeout(timer)
      timer = null
      pending.clear()
    },
  }
}

/**
 * The queries that a pending mutation holds its change in, shown before the server has it (its
 * `meta.holds`, a query key). Fetched now, they would bring back the server's state from before
 * the change and undo it on the screen: a card moved twice in a row jumped back to where the
 * first move put it when that move's own event came in, and lost the focus. Such a mutation
 * fetches them itself once it settles.
 */
function held(client: QueryClient): Set<string> {
  const keys = client.getMutationCache().findAll({ status: 'pending' }).map((m) => m.options.meta?.holds)
  return new Set(keys.filter(Array.isArray).map((key) => key.join('/')))
}
