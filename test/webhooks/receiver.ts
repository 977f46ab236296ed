// A local HTTP endpoint standing in for a customer's webhook receiver: it records every request
// (headers and raw body) and answers what the test tells it to (a status, or nothing at all).
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Received {
  headers: Record<string, string>
  body: string
  at: number
}

export interface Receiver {
  url: string
  received: Received[]
  /** What to answer next: a status code, or 'hang' to never answer. */
  answer: number | 'hang'
  close(): Promise<void>
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const hanging = new Set<http.ServerResponse>()
  const receiver: Receiver = {
    url: '',
    received: [],
    answer: 204,
    close: () =>
      new Promise((resolve) => {
        for (const res of hanging) res.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      receiver.received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString(), at: Date.now() })
      if (receiver.answer === 'hang') return void hanging.add(res)
      res.writeHead(receiver.answer).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  return receiver
}
