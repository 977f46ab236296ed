// A gateway in front of the real API, like a proxy or load balancer: it forwards requests,
// except that it can be told to answer the next ones itself (a 503 during a deploy, a 502
// HTML page without the error envelope, a stream that ends at once). Lets the client's
// retry and reconnect rules be tested against failures the API itself never produces.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export type Canned =
  | { status: number; body?: string; contentType?: string }
  /** 200 text/event-stream with the retry hint, then the response ends. */
  | 'stream-then-close'

export interface Gateway {
  url: string
  /** Every request that reached the gateway, as "METHOD /path". */
  seen: string[]
  /** Answers for the next requests, in order; once used up, requests are forwarded. */
  plan(...answers: Canned[]): void
  close(): Promise<void>
}

export async function startGateway(target: string): Promise<Gateway> {
  const queue: Canned[] = []
  const seen: string[] = []
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    const canned = queue.shift()
    if (canned === 'stream-then-close') {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end('retry: 3000\n\n')
      return
    }
    if (canned) {
      res.writeHead(canned.status, { 'content-type': canned.contentType ?? 'text/html' })
      res.end(canned.body ?? '<html>gateway</html>')
      return
    }
    const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers)
      answer.pipe(res)
    })
    upstream.on('error', () => res.destroy())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    plan: (...answers) => queue.push(...answers),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
