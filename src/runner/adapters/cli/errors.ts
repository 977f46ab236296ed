// What kind of failure an agent CLI reported: the run's error says which, so that people know
// whether to wait (rate limit, overload), fix a credential, or look at the agent's work.

export type FailureKind = 'rate_limit' | 'overloaded' | 'credentials' | 'error'

const PATTERNS: [FailureKind, RegExp][] = [
  // Codex says "We're currently experiencing high demand" for a 500 or 503 of the API.
  ['overloaded', /overloaded|\b529\b|\b503\b|\b500 Internal Server Error\b|service unavailable|\bUNAVAILABLE\b|model is currently unavailable|capacity|high demand/i],
  ['rate_limit', /rate.?limit|\b429\b|too many requests|usage limit|quota|RESOURCE_EXHAUSTED/i],
  ['credentials', /\b401\b|\b403\b|unauthori[sz]ed|unauthenticated|incorrect api.?key|invalid_api_key|invalid.{0,20}(api.?key|token|x-api-key)|api.?key.{0,30}(not valid|invalid|missing|not set|required)|authenticat|not logged in|please run \/login|login required|credential|permission_denied/i],
]

export function classifyFailure(text: string): FailureKind {
  for (const [kind, pattern] of PATTERNS) if (pattern.test(text)) return kind
  return 'error'
}

/** `<product>: <what>: <detail>`, naming the credential variables for a refused credential. */
export function failureMessage(product: string, detail: string, credentials: readonly string[]): string {
  const kind = classifyFailure(detail)
  const what = {
    rate_limit: 'rate limited',
    overloaded: 'overloaded',
    credentials: `credentials refused or missing (${credentials.join(' or ') || 'its login'})`,
    error: 'error',
  }[kind]
  return `${product}: ${what}: ${detail.trim()}`
}
