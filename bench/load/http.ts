import http from 'node:http'

export interface RequestSpec {
  method: string
  path: string
  headers?: Record<string, string>
  body?: unknown
}

export interface Answer {
  /** The HTTP status; `net` when the connection failed, `timeout` when no answer came in time. */
  status: number | 'net' | 'timeout'
  body: string
}

/**
 * A keep-alive HTTP client over node:http with at most `connections` sockets, so that N
 * concurrent loops hold N connections, as a load generator's "connections" setting means.
 */
export function client(base: string, connections: number) {
  const url = new URL(base)
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections })

  function send(spec: RequestSpec, timeoutMs?: number): Promise<Answer> {
    const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body)
    const headers: Record<string, string | number> = { ...spec.headers }
    if (payload !== undefined) {
      headers['content-type'] = 'application/json'
      headers['content-length'] = Buffer.byteLength(payload)
    }
    return new Promise((resolve) => {
      const req = http.request(
        { host: url.hostname, port: url.port, method: spec.method, path: spec.path, headers, agent },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }))
          res.on('error', () => resolve({ status: 'net', body: '' }))
        },
      )
      // Counted from the send, so that time spent waiting for a free socket counts too.
      let timedOut = false
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              timedOut = true
              req.destroy()
            }, timeoutMs)
      req.on('close', () => clearTimeout(timer))
      req.on('error', () => resolve({ status: timedOut ? 'timeout' : 'net', body: '' }))
      if (payload !== undefined) req.write(payload)
      req.end()
    })
  }

  return { send, close: () => agent.destroy() }
}
