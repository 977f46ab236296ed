// Every failure is shown to people in words: the server's message, every validation problem
// with the field it concerns, or a plain sentence for a network failure.
import { ApiError, NetworkError } from '#src/client/http.ts'

interface ValidationProblem {
  loc?: (string | number)[]
  message?: string
  msg?: string
}

function problemText(problem: ValidationProblem): string {
  const field = (problem.loc ?? []).slice(1).join('.')
  const message = problem.message ?? problem.msg ?? 'is not valid'
  return field ? `${field}: ${message}` : message
}

/** The lines to show for an error (several for a validation error listing many problems). */
export function errorLines(error: unknown): string[] {
  if (error instanceof ApiError) {
    const problems = error.details?.errors
    if (error.code === 'VALIDATION_ERROR' && Array.isArray(problems) && problems.length > 0) {
      return (problems as ValidationProblem[]).map(problemText)
    }
    if (error.code === 'RATE_LIMITED') return [`${error.message}. Please wait a minute and try again.`]
    return [error.message || `Request failed (${error.status})`]
  }
  if (error instanceof NetworkError) return ['Cannot reach the server. Check your connection and try again.']
  if (error instanceof Error) return [error.message]
  return ['Something went wrong.']
}

export function errorCode(error: unknown): string | null {
  return error instanceof ApiError ? error.code : null
}
