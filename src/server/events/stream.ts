import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { CompanyEvent } from './bus.ts'

/** Reconnect hint sent as the first message (SPEC.md Events, Framing). */
export const RETRY_MS = 3000
/** Events a connection holds for a client that does not keep up; later ones are dropped. */
export const MAX_BUFFERED_EVENTS = 1000
/** How long a stream ended by shutdown may take to flush before its socket is cut. */
const END_GRACE_MS = 1000

const HEARTBEAT = ': heartbeat\n\n'

// One serialisation per event, however many streams carry it.
const frames = new WeakMap<CompanyEvent, string>()

/** `data: <json>` and a blank line: no `event:` or `id:` fields. */
export function frameOf(event: CompanyEvent): string {
  let frame = frames.get(event)
  if (frame === undefined) {
    frame = `data: ${JSON.stringify(event)}\n\n`
    frames.set(event, frame)
  }
  return frame
}

/**
 * One open server-sent event response.
 *
 * Frames go straight to the socket while it accepts them. Once `write` reports backpressure
 * (the socket's buffer is past its high-water mark because the client reads slowly), further
 * frames wait in this connection's own queue, at most MAX_BUFFERED_EVENTS of them; beyond that
 * they are dropped and counted. The queue drains on the socket's `drain`. So a slow client
 * costs at most its socket buffer plus a thousand frames, and never slows anyone else.
 */
export class EventStream {
  private queue: string[] = []
  private blocked = false
  private opened = false
  private ended = false
  private readonly heartbeat: NodeJS.Timeout
  /** Events dropped because the queue was full. */
  dropped = 0

  constructor(
    private readonly res: ServerResponse,
    heartbeatMs: number,
    onClose: () => void,
  ) {
    // The timer is refreshed by every write, so it fires only after heartbeatMs of silence.
    this.heartbeat = setTimeout(() => this.beat(), heartbeatMs)
    this.heartbeat.unref()
    res.once('close', () => {
      // Client gone or response over: free the queue and stop listening.
      this.ended = true
      this.queue = []
      clearTimeout(this.heartbeat)
      onClose()
    })
  }

  /** Events waiting in this connection's queue. */
  get buffered(): number {
    return this.queue.length
  }

  /** Bytes handed to the socket and not yet flushed to the network. */
  get socketBuffered(): number {
    return this.res.writableLength
  }

  /** Sends the status line, the headers and the reconnect hint, then anything already queued. */
  open(headers: OutgoingHttpHeaders): void {
    if (this.ended) return
    this.res.writeHead(200, headers)
    this.opened = true
    this.write(`retry: ${RETRY_MS}\n\n`)
    this.flush()
  }

  send(event: CompanyEvent): void {
    if (this.ended) return
    if (!this.opened || this.blocked) {
      if (this.queue.length < MAX_BUFFERED_EVENTS) this.queue.push(frameOf(event))
      else this.dropped++
      return
    }
    this.write(frameOf(event))
  }

  /** Ends the response (server shutdown); cuts the socket if the client does not take the rest. */
  end(): void {
    if (this.ended) return
    this.ended = true
    this.queue = []
    clearTimeout(this.heartbeat)
    this.res.end()
    setTimeout(() => this.res.destroy(), END_GRACE_MS).unref()
  }

  private write(chunk: string): void {
    this.heartbeat.refresh()
    if (!this.res.write(chunk)) {
      this.blocked = true
      this.res.once('drain', () => {
        this.blocked = false
        this.flush()
      })
    }
  }

  private flush(): void {
    let next = 0
    while (next < this.queue.length && !this.blocked && !this.ended) this.write(this.queue[next++])
    this.queue.splice(0, next)
  }

  private beat(): void {
    if (this.ended) return
    // Not open yet, or a blocked socket that still has frames on their way: not idle.
    if (!this.opened || this.blocked) this.heartbeat.refresh()
    else this.write(HEARTBEAT)
  }
}
