import type { FastifyInstance } from 'fastify'
import { validationError } from '../errors.ts'

/**
 * The one JSON body parser. Clients that send `Content-Type: application/json` on every request
 * send an empty body where a route takes none (pause, wake, trigger, logout...): that means
 * "no body", which the route's schema then accepts or refuses, not a malformed request.
 * Malformed JSON is 422 VALIDATION_ERROR at `body` (SPEC.md "Envelope").
 */
export function installJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    const body = String(text)
    if (body.trim() === '') return done(null, undefined)
    try {
      done(null, JSON.parse(body))
    } catch (err) {
      done(validationError([{ loc: ['body'], message: `JSON decode error: ${(err as Error).message}`, msg: 'JSON decode error', type: 'json_invalid' }]), undefined)
    }
  })
}
