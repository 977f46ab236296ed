// Errors that say "the database cannot be reached right now" rather than "this statement is
// wrong": the server is down, restarting or refusing connections, or the connection broke.
// The API answers them 503 SERVICE_UNAVAILABLE and stays up; the caller may simply try again.

/** Network errors of the socket under a connection. */
const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])

/** Messages of node-postgres's own errors, which carry no code. */
const DRIVER = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Cannot use a pool after calling end on the pool',
]

export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null
  if (!e || typeof e !== 'object') return false
  const code = typeof e.code === 'string' ? e.code : ''
  // SQLSTATE class 08 (connection exception), 57P01-57P03 (shutdown, crash, starting up),
  // 53300 (too many connections).
  if (NETWORK.has(code) || code.startsWith('08') || /^57P0[123]$/.test(code) || code === '53300') return true
  const message = typeof e.message === 'string' ? e.message : ''
  return DRIVER.some((text) => message.startsWith(text))
}
