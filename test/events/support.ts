// Shared by the event tests: a company to stream, a listening app, and a stream client that
// reads the real socket and parses server-sent event frames.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import type { AppContext } from '../../src/server/context.ts'
import type { TestUser } from '../helpers.ts'

/** A company with `user` as its owner, written straight to the database. */
export async function ownedCompany(ctx: AppContext, user: TestUser, name = 'Events Co'): Promise<string> {
  const company = await ctx.db.one<{ id: string }>('INSERT INTO companies (name) VALUES ($1) RETURNING id', [name])
  await ctx.db.query("INSERT INTO memberships (company_id, user_id, role) VALUES ($1, $2, 'owner')", [company!.id, user.id])
  return company!.id
}

/** Listens on a free port of the loopback interface; answers the base URL. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 })
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
}

/** Polls until check() is truthy; fails with `what` after timeoutMs. */
export async function waitUntil<T>(check: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** One message of the stream: the lines between two blank lines. */
export type Frame = string[]

export interface StreamClient {
  status: number
  headers: http.IncomingHttpHeaders
  /** Every complete frame received so far, in order. */
  frames: Frame[]
  /** Everything received, as text. */
  body(): string
  /** The JSON of every `data:` frame, in order. */
  events(): any[]
  /** Resolves when the server ends the response. */
  ended: Promise<void>
  /** Stops reading from the socket (a slow client), or resumes. */
  pause(): void
  resume(): void
  /** Drops the connection (the client goes away). */
  close(): void
}

/**
 * Opens GET /api/companies/{id}/events over a real socket and resolves once the response
 * head has arrived. Non-200 answers resolve too, with the body left in `frames` unparsed.
 */
export function openStream(
  base: string,
  companyId: string,
  options: { token?: string; headers?: Record<string, string>; query?: string } = {},
): Promise<StreamClient> {
  const url = `${base}/api/companies/${companyId}/events${options.query ?? ''}`
  const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers }
  if (options.token) headers.authorization = `Bearer ${options.token}`
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers, agent: false }, (response) => {
      response.setEncoding('utf8')
      let pending = ''
      let body = ''
      const frames: Frame[] = []
      let endStream!: () => void
      const ended = new Promise<void>((r) => (endStream = r))
      response.on('data', (chunk: string) => {
        pending += chunk
        body += chunk
        let cut: number
        while ((cut = pending.indexOf('\n\n')) !== -1) {
          frames.push(pending.slice(0, cut).split('\n'))
          pending = pending.slice(cut + 2)
        }
      })
      response.on('end', endStream)
      response.on('close', endStream)
      response.on('error', endStream)
      resolve({
        status: response.statusCode!,
        headers: response.headers,
        frames,
        body: () => body,
        events: () =>
          frames.filter((f) => f.length === 1 && f[0].startsWith('data: ')).map((f) => JSON.parse(f[0].slice(6))),
        ended,
        pause: () => response.pause(),
        resume: () => response.resume(),
        close: () => request.destroy(),
      })
    })
    request.on('error', reject)
  })
}

/** A stream that is open and live: status 200 and the first frame (`retry: 3000`) received. */
export async function openLiveStream(base: string, companyId: string, token: string): Promise<StreamClient> {
  const stream = await openStream(base, companyId, { token })
  if (stream.status !== 200) throw new Error(`stream answered ${stream.status}`)
  await waitUntil(() => stream.frames.length > 0, 'the first frame')
  return stream
}
