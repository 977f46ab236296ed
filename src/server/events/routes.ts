import type { OutgoingHttpHeaders } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { CompanyParams, companyErrors } from '../../contract/common.ts'
import { authenticate, bearer } from '../auth/authenticate.ts'
import type { AppContext } from '../context.ts'
import { AppError } from '../errors.ts'
import { EventStream } from './stream.ts'

/**
 * How long a new stream waits for the shared backend to confirm its subscription before it
 * opens anyway (Redis down: the stream goes live once Redis is back).
 */
const SUBSCRIBE_WAIT_MS = 5000

/**
 * How often every open stream's credential and membership are checked again even without a
 * change notification (the listening connection may have been down when one was sent).
 */
const RECHECK_EVERY_MS = 30_000
/** A burst of credential changes is checked once, this long after the first. */
const RECHECK_AFTER_MS = 200

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
// membership are checked at connect by the company scope's hooks (401 / 404 envelopes), and
// again whenever a key, a user or a membership changes (and every RECHECK_EVERY_MS): a stream
// whose key was revoked, whose user was deactivated or whose holder left the company ends.
// One credential holds at most SSE_MAX_STREAMS_PER_CREDENTIAL streams and the process at most
// SSE_MAX_STREAMS, beyond that 429 RATE_LIMITED.
export async function eventRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }) {
  const streams = new Set<EventStream>()
  openStreams.set(ctx, streams)
  /** What each stream was granted on: its credential and company. */
  const grants = new Map<EventStream, { credential: string; companyId: string }>()
  const perCredential = new Map<string, number>()

  let recheckTimer: NodeJS.Timeout | null = null
  /** Checks every open stream's credential in the company again; ends those no longer allowed. */
  const recheck = () => {
    if (recheckTimer) return
    recheckTimer = setTimeout(async () => {
      recheckTimer = null
      const byGrant = new Map<string, EventStream[]>()
      for (const [stream, grant] of grants) {
        const key = `${grant.companyId} ${grant.credential}`
        const list = byGrant.get(key)
        if (list) list.push(stream)
        else byGrant.set(key, [stream])
      }
      for (const list of byGrant.values()) {
        const { credential, companyId } = grants.get(list[0])!
        let allowed: boolean
        try {
          allowed = (await authenticate(ctx, credential, companyId)).role !== null
        } catch (err) {
          // Refused (revoked, expired, deactivated): ends. The database unreachable: kept for now.
          allowed = !(err instanceof AppError)
        }
        if (!allowed) for (const stream of list) stream.end()
      }
    }, RECHECK_AFTER_MS)
    recheckTimer.unref()
  }
  const unwatch = ctx.credentials.watch(recheck)
  const sweep = setInterval(recheck, RECHECK_EVERY_MS).unref()

  app.get('/events', { schema }, async (request, reply) => {
    const { companyId } = request.membership
    const credential = bearer(request.headers.authorization)
    const held = perCredential.get(credential) ?? 0
    if (held >= ctx.config.sseMaxStreamsPerCredential) {
      throw new AppError('RATE_LIMITED', `This credential already holds ${held} live event streams, the most it may (SSE_MAX_STREAMS_PER_CREDENTIAL); close one first`)
    }
    if (streams.size >= ctx.config.sseMaxStreams) {
      throw new AppError('RATE_LIMITED', 'This server holds as many live event streams as it may (SSE_MAX_STREAMS); try again later')
    }
    // From here on the response is ours: Fastify neither serialises nor ends it.
    reply.hijack()
    const stream = new EventStream(reply.raw, ctx.config.sseHeartbeatSeconds * 1000, () => {
      unsubscribe()
      streams.delete(stream)
      grants.delete(stream)
      const left = (perCredential.get(credential) ?? 1) - 1
      if (left > 0) perCredential.set(credential, left)
      else perCredential.delete(credential)
    })
    grants.set(stream, { credential, companyId })
    perCredential.set(credential, held + 1)
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
    unwatch()
    clearInterval(sweep)
    if (recheckTimer) clearTimeout(recheckTimer)
    for (const stream of streams) stream.end()
  })
}
