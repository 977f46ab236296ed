// The one API client of the web app, on the same origin that served the page. The session
// (access and refresh token) is kept in localStorage so a reload stays signed in; the client
// refreshes it once on 401 (shared among simultaneous failures) and reports every change here.
import { ShopfloorClient } from '#src/client/api.ts'
import type { TokenPair } from '#src/client/http.ts'

const STORAGE_KEY = 'shopfloor.session'
const listeners = new Set<() => void>()

function stored(): TokenPair | null {
  try {
    const value = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null')
    return value && typeof value.accessToken === 'string' ? value : null
  } catch {
    return null
  }
}

function persist(tokens: TokenPair | null): void {
  if (tokens) localStorage.setItem(STORAGE_KEY, JSON.stringify(tokens))
  else localStorage.removeItem(STORAGE_KEY)
  for (const listener of listeners) listener()
}

const initial = stored()
export const api = new ShopfloorClient({
  baseUrl: window.location.origin,
  credentials: initial,
  onTokens: persist,
  retry: { retries: 2 },
})
export const http = api.http

// Another tab signing in or out changes this tab's session too.
window.addEventListener('storage', (event) => {
  if (event.key !== STORAGE_KEY) return
  const tokens = stored()
  http.setCredentials(tokens)
})

export function isSignedIn(): boolean {
  return http.getCredentials() !== null
}

export function refreshToken(): string | null {
  const credentials = http.getCredentials()
  return credentials && 'refreshToken' in credentials ? (credentials.refreshToken ?? null) : null
}

export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}
