// The live event stream of the open company, one per browser however many tabs are open: a
// browser allows six connections per site over HTTP/1.1, and a stream per tab would leave a
// seventh tab unable to load. The tabs elect a leader with a Web Lock; the leader follows the
// stream and passes each event and its connection state to the other tabs on a BroadcastChannel.
// When the leader tab closes, its lock is released and a waiting tab takes over. Each event
// invalidates the cached queries it concerns (a moment's events at once: stale.ts); after a
// reconnection (or a change of leader) every query of the company is refetched, since events
// sent while no stream was connected are lost.
// The lists' minute refetch (queries.ts) stays as a safety net under all this.
import { type QueryClient, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { followEvents } from '#src/client/events.ts'
import type { LiveEvent } from '#src/client/types.ts'
import { http } from './api.ts'
import { staleGatherer } from './stale.ts'

export type LiveState = 'connecting' | 'live' | 'down' | 'stopped'

/** What tabs tell each other about one company's stream. */
export type LiveMessage =
  | { kind: 'event'; event: LiveEvent }
  | { kind: 'state'; state: LiveState; resync?: boolean }
  | { kind: 'hello' }

const channelName = (companyId: string) => `shopfloor.events.${companyId}`

const refetchAll = (client: QueryClient, companyId: string) => void client.invalidateQueries({ queryKey: ['c', companyId] })

/** Follows the company's stream (itself, or through the leading tab) while mounted; returns its state. */
export function useLiveEvents(companyId: string | null): LiveState {
  const client = useQueryClient()
  const [state, setState] = useState<LiveState>('connecting')
  useEffect(() => {
    if (!companyId) return
    const stop = new AbortController()
    const shared = typeof BroadcastChannel !== 'undefined' && typeof navigator !== 'undefined' && 'locks' in navigator
    const channel = shared ? new BroadcastChannel(channelName(companyId)) : null
    let leading = false
    let current: LiveState = 'connecting'
    let wasFollower = false
    const stale = staleGatherer(client)
    setState('connecting')

    const show = (next: LiveState) => {
      current = next
      setState(next)
    }
    // A message from another tab. BroadcastChannel does not echo to its sender.
    if (channel) {
      channel.onmessage = ({ data }: MessageEvent<LiveMessage>) => {
        if (data.kind === 'event') stale.add(companyId, data.event)
        else if (data.kind === 'state' && !leading) {
          wasFollower = true
          show(data.state)
          if (data.resync) refetchAll(client, companyId)
        } else if (data.kind === 'hello' && leading) channel.postMessage({ kind: 'state', state: current } satisfies LiveMessage)
      }
    }
    const publish = (next: LiveState, resync = false) => {
      show(next)
      channel?.postMessage({ kind: 'state', state: next, resync } satisfies LiveMessage)
    }

    async function lead(): Promise<void> {
      leading = true
      // A tab taking over from a closed leader may have missed events in between.
      let missed = wasFollower
      try {
        await followEvents(http, companyId!, {
          signal: stop.signal,
          onEvent(event) {
            stale.add(companyId!, event)
            channel?.postMessage({ kind: 'event', event } satisfies LiveMessage)
          },
          onConnected() {
            if (missed) refetchAll(client, companyId!)
            publish('live', missed)
            missed = false
          },
          onDisconnected() {
            missed = true
            publish('down')
          },
        })
      } catch {
        if (!stop.signal.aborted) publish('stopped')
      }
    }

    if (channel) {
      // Held until this tab stops following (closed, or another company opened).
      navigator.locks.request(channelName(companyId), { signal: stop.signal }, lead).catch(() => undefined)
      channel.postMessage({ kind: 'hello' } satisfies LiveMessage)
    } else {
      void lead()
    }
    return () => {
      stop.abort()
      stale.stop()
      channel?.close()
    }
  }, [companyId, client])
  return state
}
