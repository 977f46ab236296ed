// Every failure is shown to people in words: the server's message, every validation problem
// with the field it concerns, a record that is not there, a refusal saying who may do it, or a
// plain sentence for a server that does not answer; and whether trying again may help.
import { ApiError, NetworkError } from '#src/client/http.ts'

interface ValidationProblem {
  loc?: (string | number)[]
  message?: string
  msg?: string
  type?: string
}

/** What a field with a set form takes, said in words: a refusal never shows the pattern itself. */
export const FIELD_FORMS: Record<string, string> = {
  locale: 'Locale: use a language tag such as en-US.',
  currency: 'Currency: use a three-letter currency code such as EUR.',
  task_prefix: 'Task prefix: capital letters and digits, starting with a letter, such as ACME.',
}

function problemText(problem: ValidationProblem): string {
  const field = (problem.loc ?? []).slice(1).join('.')
  if (problem.type === 'string_pattern_mismatch') return FIELD_FORMS[field] ?? `${field || 'A value'}: not in the form expected.`
  const message = problem.message ?? problem.msg ?? 'is not valid'
  return field ? `${field}: ${message}` : message
}

/** The lines to show for an error (several for a validation error listing many problems). */
export function errorLines(error: unknown): string[] {
  if (error instanceof ApiError) {
    const problems = error.details?.errors
    if (error.code === 'VALIDATION_ERROR' && Array.isArray(problems) && problems.length > 0) {
      // An id in the address that cannot be one (a mistyped link) names no record at all.
      if ((problems as ValidationProblem[]).every((p) => p.loc?.[0] === 'path')) return ['This link does not lead to anything: it may be mistyped or cut short.']
      return (problems as ValidationProblem[]).map(problemText)
    }
    if (error.code === 'RATE_LIMITED') return [`${error.message}. Please wait a minute and try again.`]
    if (error.code === 'NOT_FOUND') return [missingText(error.message)]
    if (error.code === 'FORBIDDEN') return [forbiddenText(error.message)]
    if (error.status >= 500) return [`The server could not answer (error ${error.status}). Try again in a moment.`]
    return [error.message || `Request failed (${error.status})`]
  }
  if (error instanceof NetworkError) return ['Cannot reach the server. Check your connection and try again.']
  if (error instanceof Error) return [error.message]
  return ['Something went wrong.']
}

/**
 * The server names what it did not find ("Task not found"): said as a person would. A company
 * is "not found" also to someone who is not one of its members.
 */
function missingText(message: string): string {
  const name = /^(.+) not found$/.exec(message)?.[1]
  if (!name) return message || 'This does not exist or was deleted.'
  const thing = /^[A-Z][a-z]/.test(name) ? name.charAt(0).toLowerCase() + name.slice(1) : name // "API key" keeps its capitals
  if (thing === 'company') return 'This company does not exist, or you are not one of its members.'
  return `This ${thing} does not exist or was deleted.`
}

/** A refusal says who may do it: the server's sentence does ("Only an owner or admin ..."), else we add it. */
function forbiddenText(message: string): string {
  if (/\bonly\b|\bowner\b|\badmin\b/i.test(message)) return message
  return `${message || 'You are not allowed to do this'}. An owner or admin of the company can.`
}

/** True when the same request may work later: the server unreachable, failing, or asking to slow down. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof NetworkError) return true
  return error instanceof ApiError && (error.status >= 500 || error.status === 429 || error.code === 'HTTP_ERROR' || error.code === 'INVALID_RESPONSE')
}

export function errorCode(error: unknown): string | null {
  return error instanceof ApiError ? error.code : null
}
