// Reader of a company's live event stream (server-sent events over fetch, because EventSource
// cannot send the bearer header). It reconnects with backoff (2, 4, 8, 16, then 30 seconds,
// reset after each successful connection), refreshes the session on 401 through the HTTP
// client, and stops for good on 404 (not a member, or no such company) or when aborted.
import { ApiError, errorFromResponse, type HttpClient, sleep } from './http.ts'
import type { LiveEvent } from './types.ts'

export const RECONNECT_DELAYS_MS: readonly number[] = [2000, 4000, 8000, 16000, 30000]

export interface StreamOptions {
  onEvent: (event: LiveEvent) => void
  /** After each successful (re)connection: the moment to refetch everything displayed. */
  onConnected?: () => void
  /** When a connection ends or fails; `retryInMs` is the wait before the next attempt. */
  onDisconnected?: (info: { error: unknown; retryInMs: number }) => void
  signal?: AbortSignal
  /** Waits between attempts; the last one repeats. */
  delaysMs?: readonly number[]
}

/**
 * Follows the stream until `signal` aborts (resolves) or the stream cannot be followed at all
 * (rejects with the ApiError: 404, or 401/403 that a refresh did not cure).
 */
export async function followEvents(http: HttpClient, companyId: string, options: StreamOptions): Promise<void> {
  const delays = options.delaysMs ?? RECONNECT_DELAYS_MS
  let failures = 0
  while (!options.signal?.aborted) {
    let error: unknown = null
    try {
      const response = await http.send('GET', `/api/companies/${encodeURIComponent(companyId)}/events`, {
        headers: { accept: 'text/event-stream' },
        signal: options.signal,
        retry: false,
      })
      if (!response.ok) {
        const failure = await errorFromResponse(response)
        if ([401, 403, 404].includes(failure.status)) throw failure
        error = failure
      } else {
        failures = 0
        options.onConnected?.()
        // Events already read with the last chunk are not handed out once the caller stopped.
        await readEvents(response, (event) => {
          if (!options.signal?.aborted) options.onEvent(event)
        })
      }
    } catch (caught) {
      if (options.signal?.aborted) return
      if (caught instanceof ApiError) throw caught
      error = caught
    }
    const retryInMs = delays[Math.min(failures, delays.length - 1)]
    failures++
    options.onDisconnected?.({ error, retryInMs })
    try {
      await sleep(retryInMs, options.signal)
    } catch {
      return
    }
  }
}

/** Reads `data:` lines until the body ends; `:` comments and other fields are ignored. */
async function readEvents(response: Response, onEvent: (event: LiveEvent) => void): Promise<void> {
  if (!response.body) return
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  let buffered = ''
  let data: string[] = []
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return
    buffered += value
    let newline: number
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).replace(/\r$/, '')
      buffered = buffered.slice(newline + 1)
      if (line === '') {
        if (data.length) dispatch(data.join('\n'), onEvent)
        data = []
      } else if (line.startsWith('data:')) {
        data.push(line.slice(5).replace(/^ /, ''))
      }
    }
  }
}

function dispatch(payload: string, onEvent: (event: LiveEvent) => void): void {
  let event: LiveEvent
  try {
    event = JSON.parse(payload) as LiveEvent
  } catch {
    return // a malformed payload is skipped, the stream goes on
  }
  onEvent(event)
}
