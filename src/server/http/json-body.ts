import type { FastifyInstance } from 'fastify'
import { validationError } from '../errors.ts'
import { MAX_JSON_DEPTH, nestsDeeperThan } from './input-guards.ts'

/**
 * The one JSON body parser. Clients that send `Content-Type: application/json` on every request
 * send an empty body where a route takes none (pause, wake, trigger, logout...): that means
 * "no body", which the route's schema then accepts or refuses, not a malformed request.
 * Malformed JSON is 422 VALIDATION_ERROR at `body` (SPEC.md "Envelope"), and so is JSON nested
 * deeper than MAX_JSON_DEPTH.
 */
export function installJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    const body = String(text)
    if (body.trim() === '') return done(null, undefined)
    if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
      const message = `JSON nested deeper than ${MAX_JSON_DEPTH} levels`
      return done(validationError([{ loc: ['body'], message, type: 'json_too_deep' }]), undefined)
    }
    try {
      done(null, JSON.parse(body))
    } catch (err) {
      done(validationError([{ loc: ['body'], message: `JSON decode error: ${(err as Error).message}`, msg: 'JSON decode error', type: 'json_invalid' }]), undefined)
    }
  })
}
