import type { FastifyInstance } from 'fastify'
import { isUuid } from '../../contract/common.ts'

// Ids are UUIDs (SPEC.md conventions), which PostgreSQL reads in either case and always writes
// in lower case. A client may send them in capitals; lowering them on the way in keeps every
// comparison in code (a change or none, a task that is its own parent, an event's company)
// the same as the database's.

const isIdField = (key: string) => key === 'id' || key.endsWith('_id') || key.endsWith('_ids')

function lowerIds(values: unknown): void {
  if (!values || typeof values !== 'object' || Array.isArray(values)) return
  const record = values as Record<string, unknown>
  for (const [key, value] of Object.entries(record)) {
    if (!isIdField(key)) continue
    if (isUuid(value)) record[key] = value.toLowerCase()
    else if (Array.isArray(value)) record[key] = value.map((v) => (isUuid(v) ? v.toLowerCase() : v))
  }
}

/** Path and query ids before anything reads them (membership), body ids before validation. */
export function installIdNormalising(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    lowerIds(request.params)
    lowerIds(request.query)
  })
  app.addHook('preValidation', async (request) => {
    lowerIds(request.body)
  })
}
