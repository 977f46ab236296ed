// Exit codes and the one place that turns any failure into `CODE: message` on stderr.
// 0 success, 2 a mistake in the command line, 3 not authenticated or not allowed, 4 not found,
// 5 conflict or invalid input, 1 anything else (network, server).
import { ApiError, NetworkError } from '../../client/index.ts'

export const EXIT = { ok: 0, failure: 1, usage: 2, auth: 3, notFound: 4, conflict: 5 } as const

/** A mistake in the command line itself (unknown option, missing argument). */
export class UsageError extends Error {}

/** A failure found by the client before or without the API (no company chosen...). */
export class CliError extends Error {
  constructor(readonly code: string, message: string, readonly exitCode: number = EXIT.failure) {
    super(message)
  }
}

export function exitCodeFor(error: unknown): number {
  if (error instanceof CliError) return error.exitCode
  if (error instanceof UsageError) return EXIT.usage
  if (!(error instanceof ApiError)) return EXIT.failure
  if (error.status === 401 || error.status === 403) return EXIT.auth
  if (error.status === 404) return EXIT.notFound
  if (error.status === 409 || error.status === 422) return EXIT.conflict
  // 400 is "valid request not allowed in the current state" (INVALID_STATE, cycles, ...);
  // a bare 400 without the envelope is a transport problem, not a domain conflict.
  if (error.status === 400 && error.code !== 'HTTP_ERROR') return EXIT.conflict
  return EXIT.failure
}

/** The stderr line(s) for a failure. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError || error instanceof CliError) return `${error.code}: ${error.message}`
  if (error instanceof UsageError) return `USAGE_ERROR: ${error.message}`
  if (error instanceof NetworkError) return `NETWORK_ERROR: ${error.message}`
  return `ERROR: ${error instanceof Error ? error.message : String(error)}`
}
