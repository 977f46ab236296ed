// What the fault tests share: a workspace made over HTTP, a write load that records every
// acknowledged write, and checks on answers (never a 5xx other than 503, always the envelope).

export interface Owner {
  token: string
  companyId: string
  base: string
}

let made = 0

export async function http(url: string, method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(url + path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(30_000),
  })
  const text = await res.text()
  let parsed: any = null
  try {
    parsed = text ? JSON.parse(text) : null
  } catch {
    parsed = text
  }
  return { status: res.status, body: parsed, text }
}

/** A person and a company, made through the API. */
export async function makeOwner(url: string): Promise<Owner> {
  const email = `fault-${process.pid}-${Date.now().toString(36)}-${++made}@example.test`
  const registered = await http(url, 'POST', '/api/register', undefined, { email, password: 'password123', name: 'Fault Owner' })
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${registered.text}`)
  const token = registered.body.access_token
  const company = await http(url, 'POST', '/api/companies', token, { name: `Fault Co ${made}` })
  if (company.status !== 201) throw new Error(`company: ${company.status} ${company.text}`)
  return { token, companyId: company.body.id, base: `/api/companies/${company.body.id}` }
}

/** True when an error answer is in the envelope {error: {code, message, details}}. */
export function inEnvelope(body: any): boolean {
  return Boolean(body?.error && typeof body.error.code === 'string' && typeof body.error.message === 'string' && typeof body.error.details === 'object')
}

export interface LoadResult {
  /** Task ids whose create was answered 201. */
  acknowledged: string[]
  /** Answers that are not 201 and not a 503 in the envelope, or a network error while up. */
  unexpected: string[]
  /** Requests that got no answer (the server was killed or not listening yet). */
  dropped: number
  /** 503 SERVICE_UNAVAILABLE answers (starting, shutting down, database away). */
  unavailable: number
}

/**
 * Creates tasks from `workers` concurrent clients until stop() is called; each worker sends its
 * next request as soon as the previous one is answered (or failed to connect, after a pause).
 */
export function taskLoad(url: () => string, owner: Owner, workers = 8) {
  const result: LoadResult = { acknowledged: [], unexpected: [], dropped: 0, unavailable: 0 }
  let running = true
  let n = 0
  const worker = async () => {
    while (running) {
      try {
        const r = await http(url(), 'POST', `${owner.base}/tasks`, owner.token, { title: `Load task ${++n}` })
        if (r.status === 201) result.acknowledged.push(r.body.id)
        else if (r.status === 503 && inEnvelope(r.body)) result.unavailable++
        else result.unexpected.push(`${r.status} ${r.text.slice(0, 300)}`)
      } catch {
        result.dropped++
        await new Promise((r) => setTimeout(r, 50))
      }
    }
  }
  const all = Array.from({ length: workers }, worker)
  return {
    result,
    async stop(): Promise<LoadResult> {
      running = false
      await Promise.all(all)
      return result
    },
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function waitFor<T>(check: () => Promise<T> | T, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      const value = await check()
      if (value) return value
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(100)
  }
}
