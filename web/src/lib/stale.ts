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
}

export function invalidateFor(client: QueryClient, companyId: string, event: LiveEvent): void {
  const [entity, verb] = event.type.split('.')
  const keys = new Set(STALE[entity] ?? [])
  keys.add('activity') // every change writes an audit event
  if (entity === 'task' && verb === 'commented') keys.add('comments')
  if (entity === 'company') void client.invalidateQueries({ queryKey: ['companies'] })
  for (const key of keys) void client.invalidateQueries({ queryKey: ['c', companyId, key] })
}
