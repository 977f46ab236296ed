import { Pool } from 'undici'

export interface RequestSpec {
  method: string
  path: string
  headers?: Record<string, string>
  body?: unknown
  /** Answers to requests with a label are also measured apart, by label (LoadResult.byLabel). */
  label?: string
}

export interface Answer {
  /** The HTTP status; `net` when the connection failed, `timeout` when no answer came in time. */
  status: number | 'net' | 'timeout'
  body: string
}

/**
 * A keep-alive HTTP client with at most `connections` sockets, so that N concurrent loops hold
 * N connections, as a load generator's "connections" setting means. undici's pool spends about
 * a third of node:http's CPU per request: the generator shares the machine with the server and
 * PostgreSQL, so what it spends is taken from what is measured.
 */
export function client(base: string, connections: number) {
  const pool = new Pool(base, { connections, pipelining: 1, keepAliveTimeout: 60_000 })

  async function send(spec: RequestSpec, timeoutMs?: number): Promise<Answer> {
    const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body)
    const headers: Record<string, string> = { ...spec.headers }
    if (payload !== undefined) headers['content-type'] = 'application/json'
    // Counted from the send, so that time spent waiting for a free connection counts too.
    const signal = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs)
    try {
      const res = await pool.request({ method: spec.method as any, path: spec.path, headers, body: payload, signal })
      return { status: res.statusCode, body: await res.body.text() }
    } catch {
      return { status: signal?.aborted ? 'timeout' : 'net', body: '' }
    }
  }

  return { send, close: () => void pool.destroy() }
}
