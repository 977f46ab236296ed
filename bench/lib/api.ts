// Set-up through the public API (accounts, keys, companies, agents), as a client would do it.
// Bulk data is seeded with SQL instead (bench/workloads/scale-seed.ts).

export interface Account {
  userId: string
  email: string
  password: string
  apiKey: string
}

let counter = 0

async function call<T>(base: string, method: string, path: string, token: string | null, body?: unknown): Promise<T> {
  const res = await fetch(base + path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`)
  return (text ? JSON.parse(text) : null) as T
}

/** A registered person with an API key (the credential every workload uses). */
export async function account(base: string, tag = 'bench'): Promise<Account> {
  const email = `${tag}-${process.pid}-${Date.now().toString(36)}-${++counter}@bench.example`
  const password = 'bench-password-123'
  const session = await call<{ user: { id: string }; access_token: string }>(base, 'POST', '/api/register', null, { email, password, name: `Bench ${tag}` })
  const key = await call<{ key: string }>(base, 'POST', '/api/me/api-keys', session.access_token, { name: 'benchmark' })
  return { userId: session.user.id, email, password, apiKey: key.key }
}

export async function createCompany(base: string, apiKey: string, name: string, prefix: string): Promise<{ id: string }> {
  return call(base, 'POST', '/api/companies', apiKey, { name, task_prefix: prefix })
}

export async function hireAgent(base: string, apiKey: string, companyId: string, name: string, fields: Record<string, unknown> = {}): Promise<{ id: string }> {
  return call(base, 'POST', `/api/companies/${companyId}/agents`, apiKey, { name, ...fields })
}

/** A GET through the API with the person's key. */
export async function get<T>(base: string, apiKey: string, path: string): Promise<T> {
  return call(base, 'GET', path, apiKey)
}

export async function createTask(base: string, apiKey: string, companyId: string, body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  return call(base, 'POST', `/api/companies/${companyId}/tasks`, apiKey, body)
}
