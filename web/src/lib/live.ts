// One live event stream per open company. Each event invalidates the cached queries it
// concerns; after a reconnection everything of the company is refetched, since events sent
// while the stream was down are lost. The state drives the "live" indicator.
import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { followEvents } from '#src/client/events.ts'
import { http } from './api.ts'
import { invalidateFor } from './stale.ts'

export type LiveState = 'connecting' | 'live' | 'down' | 'stopped'

/** Follows the company's stream while mounted; returns the connection state. */
export function useLiveEvents(companyId: string | null): LiveState {
  const client = useQueryClient()
  const [state, setState] = useState<LiveState>('connecting')
  useEffect(() => {
    if (!companyId) return
    const abort = new AbortController()
    // Events published while no stream was connected are gone: after any failure, the next
    // connection refetches everything on screen.
    let missed = false
    setState('connecting')
    followEvents(http, companyId, {
      signal: abort.signal,
      onEvent: (event) => invalidateFor(client, companyId, event),
      onConnected() {
        setState('live')
        if (missed) void client.invalidateQueries({ queryKey: ['c', companyId] })
        missed = false
      },
      onDisconnected() {
        missed = true
        setState('down')
      },
    }).then(
      () => undefined,
      () => !abort.signal.aborted && setState('stopped'),
    )
    return () => abort.abort()
  }, [companyId, client])
  return state
}
