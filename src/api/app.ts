import { randomUUID } from 'node:crypto'
import cors from '@fastify/cors'
import rateLimit from '@fastify/rate-limit'
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify'
import { accountRoutes } from '../domain/accounts/routes.ts'
import { activityRoutes } from '../domain/activity/routes.ts'
import { enforceRunRights } from '../domain/agents/rights.ts'
import { agentRoutes } from '../domain/agents/routes.ts'
import { apiKeyRoutes } from '../domain/api-keys/routes.ts'
import { approvalRoutes } from '../domain/approvals/routes.ts'
import { commentRoutes } from '../domain/comments/routes.ts'
import { exportRoutes, importRoutes } from '../domain/companies/portability-routes.ts'
import { companyRoutes } from '../domain/companies/routes.ts'
import { documentRoutes } from '../domain/documents/routes.ts'
import { goalRoutes } from '../domain/goals/routes.ts'
import { insightRoutes } from '../domain/insights/routes.ts'
import { invitationAcceptRoutes, peopleRoutes } from '../domain/people/routes.ts'
import { projectRoutes } from '../domain/projects/routes.ts'
import { routineRoutes } from '../domain/routines/routes.ts'
import { runnerRoutes } from '../domain/runners/routes.ts'
import { currentRunRoutes } from '../domain/runs-http/current.ts'
import { runRoutes } from '../domain/runs-http/routes.ts'
import { skillRoutes } from '../domain/skills/routes.ts'
import { trialRoutes } from '../domain/runs-http/trial.ts'
import { taskRoutes } from '../domain/tasks/routes.ts'
import { webhookOutbox } from '../domain/webhooks/outbox.ts'
import { webhookRoutes } from '../domain/webhooks/routes.ts'
import { workRoutes } from '../domain/work/routes.ts'
import { ErrorEnvelope } from '../contract/common.ts'
import type { AppContext } from '../server/context.ts'
import { AppError } from '../server/errors.ts'
import { eventRoutes } from '../server/events/routes.ts'
import { installAvailability } from '../server/http/availability.ts'
import { installDocs } from '../server/http/docs.ts'
import { envelope, installErrorHandler } from '../server/http/error-handler.ts'
import { installOutbox } from '../server/db/write.ts'
import { requireMember } from '../server/http/guards.ts'
import { healthRoutes } from '../server/http/health.ts'
import { installIdNormalising } from '../server/http/ids.ts'
import { installInputGuards } from '../server/http/input-guards.ts'
import { installJsonParser } from '../server/http/json-body.ts'
import { metricsRoutes } from '../server/http/metrics.ts'
import { probeRoutes } from '../server/http/probes.ts'
import { installNotFound, type PageFallback } from '../server/http/not-found.ts'
import { buildSerializer } from '../server/http/serialization.ts'
import { validatorCompiler } from '../server/http/validation.ts'
import { webApp } from '../server/http/web-app.ts'
import { securityHeaders } from '../server/http/security-headers.ts'

/** A caller's X-Request-Id when it is 1-128 characters of letters, digits and `._:-`, else a new UUID. */
export function requestIdOf(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header
  return value && /^[A-Za-z0-9._:-]{1,128}$/.test(value) ? value : randomUUID()
}

/** Builds the whole API on a context (database, bus, config). Does not listen. */
export async function buildApp(ctx: AppContext): Promise<FastifyInstance> {
  // Writes turn their events into webhook deliveries in their own transaction.
  installOutbox(webhookOutbox)
  const { config } = ctx
  const app = Fastify({
    loggerInstance: ctx.log as any,
    // A request body: 8 MiB at most (imports take more, contract/company-export.ts); one text
    // field 1 MiB (http/input-guards.ts). Beyond either, 413 PAYLOAD_TOO_LARGE.
    bodyLimit: 8 * 1024 * 1024,
    // A request that trickles in holds what it took (a connection, an import's turn): its headers
    // must arrive within REQUEST_HEADERS_TIMEOUT_SECONDS and the whole of it within
    // REQUEST_BODY_TIMEOUT_SECONDS, checked every second, or the connection is closed (408).
    requestTimeout: Math.max(config.requestBodyTimeoutSeconds, config.requestHeadersTimeoutSeconds) * 1000,
    http: { headersTimeout: config.requestHeadersTimeoutSeconds * 1000, connectionsCheckingInterval: 1000 },
    // X-Request-Id: a caller's own id is kept (so logs can be joined across services) when it
    // is a plain token; otherwise, or when absent, a new UUID. Every log line of the request
    // carries it as `reqId`, and the answer carries it back (hook below).
    requestIdHeader: false,
    genReqId: (req) => requestIdOf(req.headers['x-request-id']),
    // The client's address (rate limits, the password hashing queue) comes from X-Forwarded-For
    // only when the request comes from a proxy TRUST_PROXY names.
    trustProxy: config.trustProxy ?? false,
    routerOptions: { ignoreTrailingSlash: true },
    // Shutdown's 503 comes from http/availability.ts, in the envelope.
    return503OnClosing: false,
    // Response serializers compile on each route's first answer (http/serialization.ts).
    schemaController: { compilersFactory: { buildSerializer } },
    // Errors Fastify raises before routing (malformed percent-encoding, bad URL) skip the error
    // handler and the hooks; they get the envelope and X-Process-Time here.
    frameworkErrors: (error, request, reply) => {
      void (reply as FastifyReply).status(error.statusCode ?? 400).header('X-Process-Time', '0.000000').header('X-Request-Id', request.id)
        .send(envelope('HTTP_ERROR', error.message))
    },
  })
  app.setValidatorCompiler(validatorCompiler)
  // Every error answer refers to this one schema (and the OpenAPI document lists it once).
  app.addSchema(ErrorEnvelope)
  installJsonParser(app)
  installAvailability(app, ctx)
  installInputGuards(app)
  installIdNormalising(app)
  installErrorHandler(app, config.production)
  // Registered before any route so it sees them all (405 needs the list of known paths).
  let pages: PageFallback | undefined
  installNotFound(app, (request, reply) => pages?.(request, reply) ?? false)

  // X-Process-Time: seconds spent in the API, on every response; X-Request-Id likewise.
  app.addHook('onRequest', async (request, reply) => {
    ;(request as any).startedAt = process.hrtime.bigint()
    reply.header('X-Request-Id', request.id)
  })
  app.addHook('onSend', async (request, reply) => {
    const started = (request as any).startedAt as bigint | undefined
    if (started !== undefined) {
      reply.header('X-Process-Time', (Number(process.hrtime.bigint() - started) / 1e9).toFixed(6))
    }
  })

  if (config.allowedHosts) {
    const allowed = new Set(config.allowedHosts.map((h) => h.toLowerCase()))
    app.addHook('onRequest', async (request) => {
      const host = (request.headers.host ?? '').toLowerCase().replace(/:\d+$/, '')
      if (!allowed.has('*') && !allowed.has(host)) throw new AppError('HTTP_ERROR', 'Invalid host header', {}, 400)
    })
  }

  // Headers every answer carries: the web app's Content-Security-Policy (http/security-headers.ts), nosniff, a referrer policy.
  const securityHeaderValues = securityHeaders(config)
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(securityHeaderValues)
    done()
  })

  await app.register(cors, {
    origin: config.allowedOrigins ?? true,
    // Credentials only to origins the operator named: with ALLOWED_ORIGINS unset any origin may
    // call (bearer tokens need no credentials mode), but none is told it may send cookies.
    credentials: config.allowedOrigins !== null,
    methods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'],
    exposedHeaders: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id'],
  })

  const headers = config.rateLimitHeaders
  await app.register(rateLimit, {
    global: false,
    addHeaders: { 'x-ratelimit-limit': headers, 'x-ratelimit-remaining': headers, 'x-ratelimit-reset': headers, 'retry-after': headers },
    addHeadersOnExceeding: { 'x-ratelimit-limit': headers, 'x-ratelimit-remaining': headers, 'x-ratelimit-reset': headers },
    errorResponseBuilder: (_request, context) =>
      new AppError('RATE_LIMITED', `Too many requests: ${context.max} per 1 minute`, {}, 429) as any,
  })

  if (config.debug) await installDocs(app)

  // An agent's run credential reaches only what its agent has the right to (domain/agents/rights.ts).
  app.addHook('preHandler', enforceRunRights(ctx))

  // Not encapsulated: its onResponse hook counts every route's answers.
  await metricsRoutes(app, { ctx })
  pages = await webApp(app, config.webDistDir ?? undefined)
  await app.register(healthRoutes, { ctx, pages })
  await app.register(probeRoutes, { ctx })
  await app.register(accountRoutes, { ctx })
  await app.register(apiKeyRoutes, { ctx })
  await app.register(companyRoutes, { ctx })
  await app.register(importRoutes, { ctx })
  await app.register(invitationAcceptRoutes, { ctx })
  await app.register(currentRunRoutes, { ctx })

  // Everything under a company: a credential and membership of that company (else 404).
  await app.register(
    async (scope) => {
      scope.addHook('onRequest', requireMember(ctx))
      for (const routes of [
        agentRoutes,
        taskRoutes,
        commentRoutes,
        goalRoutes,
        projectRoutes,
        activityRoutes,
        runRoutes,
        runnerRoutes,
        trialRoutes,
        peopleRoutes,
        approvalRoutes,
        routineRoutes,
        insightRoutes,
        eventRoutes,
        webhookRoutes,
        exportRoutes,
        workRoutes,
        documentRoutes,
        skillRoutes,
      ]) {
        await scope.register(routes, { ctx })
      }
    },
    { prefix: '/api/companies/:company_id' },
  )

  return app
}

export { envelope }
