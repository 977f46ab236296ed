import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isDatabaseUnavailable } from '../db/unavailable.ts'
import { AppError, MAX_ECHO, validationError } from '../errors.ts'
import { toIssues } from './validation.ts'

export interface ErrorBody {
  error: { code: string; message: string; details: Record<string, unknown> }
}

/** Longest message an error answer carries; a message may quote the client's input. */
const MAX_MESSAGE = 2 * MAX_ECHO

export function envelope(code: string, message: string, details: Record<string, unknown> = {}): ErrorBody {
  const text = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}...` : message
  return { error: { code, message: text, details } }
}

// PostgreSQL errors that a request can cause, by SQLSTATE (never by message text).
const PG_ERRORS: Record<string, [number, string, string]> = {
  '22P02': [422, 'VALIDATION_ERROR', 'Invalid input value'],
  '22003': [422, 'VALIDATION_ERROR', 'Number out of range'],
  '22007': [422, 'VALIDATION_ERROR', 'Invalid date or time'],
  '22008': [422, 'VALIDATION_ERROR', 'Date or time out of range'],
  '22001': [422, 'VALIDATION_ERROR', 'Value too long'],
  // NUL in text or jsonb: refused before any handler (input-guards.ts); this is the backstop.
  '22021': [422, 'VALIDATION_ERROR', 'Invalid character in input'],
  '22P05': [422, 'VALIDATION_ERROR', 'Invalid character in input'],
}

/** The single error handler: every error leaves in the envelope. */
export function installErrorHandler(app: FastifyInstance, production: boolean): void {
  app.setErrorHandler((err: FastifyError & { validationContext?: string }, request: FastifyRequest, reply: FastifyReply) => {
    let body: ErrorBody
    try {
      body = describe(err, request, production)
    } catch (failure) {
      // Describing the error failed too: still answer in the envelope, never Fastify's own body.
      request.log.error({ err, failure }, 'error handler failed')
      body = envelope('INTERNAL_ERROR', 'An unexpected error occurred')
    }
    return reply.status(STATUS[body.error.code] ?? statusOf(err)).send(body)
  })
}

// The status of codes whose status does not depend on the error.
const STATUS: Record<string, number> = { VALIDATION_ERROR: 422, RATE_LIMITED: 429, INTERNAL_ERROR: 500, SERVICE_UNAVAILABLE: 503 }

function statusOf(err: any): number {
  if (err instanceof AppError) return err.status
  return err?.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500
}

function describe(err: FastifyError & { validationContext?: string }, request: FastifyRequest, production: boolean): ErrorBody {
  if (err instanceof AppError) {
    return envelope(err.code, err.message, err.details)
  }
  if (err.validation) {
    const issues = toIssues(err.validation as any, err.validationContext)
    const appErr = validationError(issues)
    return envelope(appErr.code, appErr.message, appErr.details)
  }
  if (isDatabaseUnavailable(err)) {
    request.log.warn({ err: err.message }, 'database unreachable; answered 503')
    return envelope('SERVICE_UNAVAILABLE', 'The database is unreachable; try again shortly')
  }
  const pg = PG_ERRORS[(err as any).code as string]
  if (pg && typeof (err as any).severity === 'string') {
    return envelope(pg[1], pg[2], { errors: [{ loc: ['body'], message: pg[2], type: 'value_error' }] })
  }
  if (err.statusCode === 429) {
    return envelope('RATE_LIMITED', err.message)
  }
  if (err.statusCode === 413) {
    const limit = request.routeOptions.bodyLimit
    return envelope('PAYLOAD_TOO_LARGE', `The request body is larger than this endpoint takes${limit ? ` (${Math.round(limit / 1048576)} MiB)` : ''}`)
  }
  // Framework errors raised with a status and a plain message: body too large, bad
  // content type, malformed URL and the like.
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return envelope('HTTP_ERROR', err.message)
  }
  request.log.error({ err }, 'unhandled error')
  return envelope('INTERNAL_ERROR', 'An unexpected error occurred', production ? {} : { error: String(err.message ?? err).slice(0, MAX_MESSAGE) })
}
