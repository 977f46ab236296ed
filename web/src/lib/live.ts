// One live event stream per open company. Each event invalidates the cached queries it
// concerns; after a reconnection everything of the company is refetched, since events sent
// while the stream was down are lost. The state drives the "live" indicator.
import { type QueryClient, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { followEvents } from '../../../src/client/events.ts'
import type { LiveEvent } from '../../../src/client/types.ts'
import { http } from './api.ts'

export type LiveState = 'connecting' | 'live' | 'down' | 'stopped'

// What each entity's events make stale, as query-key segments under ['c', companyId, ...].
// Counts and statuses show up in several places (dashboard, inbox, agent cards), hence the spread.
const STALE: Record<string, string[]> = {
  company: ['company', 'dashboard', 'costs'],
  agent: ['agents', 'org', 'dashboard', 'costs', 'inbox'],
  task: ['tasks', 'dashboard', 'inbox', 'goals'],
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

/** Follows the company's stream while mounted; returns the connection state. */
export function useLiveEvents(companyId: string | null): LiveState {
  const client = useQueryClient()
  const [state, setState] = useState<LiveState>('connecting')
  useEffect(() => {
    if (!companyId) return
    const abort = new AbortController()
    let connections = 0
    setState('connecting')
    followEvents(http, companyId, {
      signal: abort.signal,
      onEvent: (event) => invalidateFor(client, companyId, event),
      onConnected() {
        setState('live')
        // Events published while disconnected are gone: refetch what is on screen.
        if (connections++ > 0) void client.invalidateQueries({ queryKey: ['c', companyId] })
      },
      onDisconnected: () => setState('down'),
    }).then(
      () => undefined,
      () => !abort.signal.aborted && setState('stopped'),
    )
    return () => abort.abort()
  }, [companyId, client])
  return state
}
