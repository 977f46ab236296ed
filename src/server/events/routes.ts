import type { OutgoingHttpHeaders } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { CompanyParams, companyErrors } from '../../contract/common.ts'
import type { AppContext } from '../context.ts'
import { EventStream } from './stream.ts'

/**
 * How long a new stream waits for the shared backend to confirm its subscription before it
 * opens anyway (Redis down: the stream goes live once Redis is back).
 */
const SUBSCRIBE_WAIT_MS = 5000

const STREAM_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
  connection: 'keep-alive',
}

// The open streams of each app, for shutdown, tests and the benchmark.
const openStreams = new WeakMap<AppContext, Set<EventStream>>()

/** The streams open on the app built on this context. */
export function streamsOf(ctx: AppContext): ReadonlySet<EventStream> {
  return openStreams.get(ctx) ?? new Set()
}

const schema = {
  tags: ['events'],
  operationId: 'streamEvents',
  summary: 'The live event stream of a company (server-sent events)',
  description: 'Each event is `data: {type, id, ...}`: which entity changed, not its new state. Comments keep the connection alive.',
  params: CompanyParams,
  response: {
    200: { description: 'An endless text/event-stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
    ...companyErrors(),
  },
}

// GET /api/companies/{company_id}/events: the server-sent event stream. The credential and the
// membership are checked once, at connect, by the company scope's hooks (401 / 404 envelopes).
export async function eventRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const streams = new Set<EventStream>()
  openStreams.set(ctx, streams)

  app.get('/events', { schema }, async (request, reply) => {
    const { companyId } = request.membership
    // From here on the response is ours: Fastify neither serialises nor ends it.
    reply.hijack()
    const stream = new EventStream(reply.raw, ctx.config.sseHeartbeatSeconds * 1000, () => {
      unsubscribe()
      streams.delete(stream)
    })
    // A run credential's stream ends with its run (reconnecting then answers 401).
    const runId = request.principal.run?.runId
    const unsubscribe = ctx.bus.subscribe(companyId, (event) => {
      stream.send(event)
      if (runId && event.type === 'run.updated' && event.id === runId && event.status !== 'running') stream.end()
    })
    streams.add(stream)

    // The first byte tells the client it is live, so a refetch it makes then misses nothing.
    let timer: NodeJS.Timeout | undefined
    await Promise.race([unsubscribe.ready, new Promise((resolve) => (timer = setTimeout(resolve, SUBSCRIBE_WAIT_MS)))])
    clearTimeout(timer)
    // Headers set by earlier hooks (CORS) are kept: the stream is opened cross-origin. The
    // onSend hook that adds X-Process-Time does not run for a hijacked reply, so it is set here.
    const started = (request as { startedAt?: bigint }).startedAt
    const processTime = started === undefined ? {} : { 'x-process-time': (Number(process.hrtime.bigint() - started) / 1e9).toFixed(6) }
    stream.open({ ...(reply.getHeaders() as OutgoingHttpHeaders), ...processTime, ...STREAM_HEADERS })
  })

  // Shutdown: end every stream so that closing the server does not wait on them.
  app.addHook('preClose', async () => {
    for (const stream of streams) stream.end()
  })
}
