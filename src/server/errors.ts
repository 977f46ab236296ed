// The domain error catalogue. Every error a handler raises on purpose is an AppError with a
// stable code and its HTTP status; the one error handler (http/error-handler.ts) turns it into
// the envelope {error: {code, message, details}}. Clients branch on `code`, never on `message`.

export const ERROR_STATUS = {
  VALIDATION_ERROR: 422,
  AUTH_REQUIRED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  HTTP_ERROR: 400,
  FORBIDDEN: 403,
  INVALID_STATE: 400,
  ORG_CYCLE: 400,
  GOAL_CYCLE: 400,
  TASK_CYCLE: 400,
  ALREADY_DECIDED: 400,
  RUN_FINISHED: 400,
  RUN_LEASE_LOST: 409,
  RUN_NOT_RUNNING: 400,
  INVALID_MONTH: 400,
  IDP_DISABLED: 404,
  IDP_SIGN_IN_FAILED: 401,
  INVALID_TOKEN: 401,
  INACTIVE_USER: 401,
  USER_EXISTS: 409,
  REGISTRATION_FAILED: 400,
  INVALID_CREDENTIALS: 401,
  ACCOUNT_LOCKED: 400,
  ACCOUNT_INACTIVE: 400,
  INVALID_REFRESH_TOKEN: 401,
  INVALID_RESET_TOKEN: 400,
  INVALID_VERIFICATION_TOKEN: 400,
  SESSION_REQUIRED: 403,
  API_KEY_EXISTS: 409,
  API_KEY_LIMIT: 400,
  SERVICE_UNAVAILABLE: 503,
  INVALID_INVITATION: 400,
  MEMBER_EXISTS: 409,
  PAYLOAD_TOO_LARGE: 413,
  CHECKS_FAILED: 400,
  VERSION_CONFLICT: 409,
  DOCUMENT_EXISTS: 409,
  SKILL_EXISTS: 409,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

export class AppError extends Error {
  readonly code: ErrorCode | string
  readonly status: number
  readonly details: Record<string, unknown>

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}, status?: number) {
    super(message)
    this.code = code
    this.status = status ?? ERROR_STATUS[code]
    this.details = details
  }
}

/** `404 NOT_FOUND` naming the entity: notFound('Task') -> "Task not found". */
export function notFound(entity: string): AppError {
  return new AppError('NOT_FOUND', `${entity} not found`)
}

export function invalidState(message: string): AppError {
  return new AppError('INVALID_STATE', message)
}

export interface ValidationIssue {
  loc: (string | number)[]
  message: string
  type: string
  msg?: string
  input?: unknown
}

/**
 * 422 VALIDATION_ERROR for problems found by code rather than by a route schema
 * (for example `days` on the dashboard). `where` is `body`, `query` or `path`.
 */
export function validationError(issues: ValidationIssue[]): AppError {
  const first = issues[0]
  const path = first.loc.slice(1).join('.')
  const message = path ? `${path}: ${first.message}` : first.message
  const errors = issues.map((i) => ({ ...i, msg: i.msg ?? i.message, ...('input' in i ? { input: clipInput(i.input) } : {}) }))
  return new AppError('VALIDATION_ERROR', message, { errors })
}

export function invalidField(where: 'body' | 'query' | 'path', field: string, message: string, input?: unknown): AppError {
  return validationError([{ loc: [where, ...field.split('.')], message, type: 'value_error', input }])
}

/** Longest echo of a client's input in an error, in characters. */
export const MAX_ECHO = 200

/**
 * The offending input as an error echoes it: short values as they are, anything longer cut to
 * MAX_ECHO characters (a value that is no string becomes the start of its JSON), so that an
 * error answer is never larger than a few kilobytes however large the request was.
 */
export function clipInput(value: unknown): unknown {
  if (typeof value === 'string') return value.length > MAX_ECHO ? `${value.slice(0, MAX_ECHO)}...` : value
  if (value === null || typeof value !== 'object') return value
  const text = JSON.stringify(value)
  return text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}...` : value
}
