import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, validationError } from '../errors.ts'
import { toIssues } from './validation.ts'

export interface ErrorBody {
  error: { code: string; message: string; details: Record<string, unknown> }
}

export function envelope(code: string, message: string, details: Record<string, unknown> = {}): ErrorBody {
  return { error: { code, message, details } }
}

// PostgreSQL errors that a request can cause, by SQLSTATE (never by message text).
const PG_ERRORS: Record<string, [number, string, string]> = {
  '22P02': [422, 'VALIDATION_ERROR', 'Invalid input value'],
  '22003': [422, 'VALIDATION_ERROR', 'Number out of range'],
  '22007': [422, 'VALIDATION_ERROR', 'Invalid date or time'],
  '22008': [422, 'VALIDATION_ERROR', 'Date or time out of range'],
  '22001': [422, 'VALIDATION_ERROR', 'Value too long'],
}

/** The single error handler: every error leaves in the envelope. */
export function installErrorHandler(app: FastifyInstance, production: boolean): void {
  app.setErrorHandler((err: FastifyError & { validationContext?: string }, request: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof AppError) {
      return reply.status(err.status).send(envelope(err.code, err.message, err.details))
    }
    if (err.validation) {
      const issues = toIssues(err.validation as any, err.validationContext)
      const appErr = validationError(issues)
      return reply.status(422).send(envelope(appErr.code, appErr.message, appErr.details))
    }
    const pg = PG_ERRORS[(err as any).code as string]
    if (pg && typeof (err as any).severity === 'string') {
      return reply.status(pg[0]).send(envelope(pg[1], pg[2], { errors: [{ loc: ['body'], message: pg[2], type: 'value_error' }] }))
    }
    if (err.statusCode === 429) {
      return reply.status(429).send(envelope('RATE_LIMITED', err.message))
    }
    // Framework errors raised with a status and a plain message: body too large, bad
    // content type, malformed URL and the like.
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.status(err.statusCode).send(envelope('HTTP_ERROR', err.message))
    }
    request.log.error({ err }, 'unhandled error')
    return reply
      .status(500)
      .send(envelope('INTERNAL_ERROR', 'An unexpected error occurred', production ? {} : { error: String(err.message ?? err) }))
  })
}
