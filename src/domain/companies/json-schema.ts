// Small JSON-schema building blocks shared by the company-data routes. Bodies are validated
// strictly (no coercion), so these describe exactly what a client must send.

export const uuid = { type: 'string', format: 'uuid' } as const

/** `schema` or null: sending null clears an optional field. */
export function nullable<S extends object>(schema: S) {
  return { anyOf: [schema, { type: 'null' }] } as const
}

export const nullableUuid = nullable(uuid)
export const nullableText = nullable({ type: 'string' } as const)
/** A timestamp (an offset is optional: without one it is read as UTC) or a plain date. */
const timestamp = {
  anyOf: [
    { type: 'string', format: 'iso-date-time' },
    { type: 'string', format: 'date' },
  ],
} as const
export const nullableTimestamp = { anyOf: [...timestamp.anyOf, { type: 'null' }] } as const
export const cents = { type: 'integer', minimum: 0 } as const

/** Path parameters: the company plus the named ids, each a UUID (a bad id is a 422). */
export function idParams(...names: string[]) {
  const properties: Record<string, typeof uuid> = { company_id: uuid }
  for (const name of names) properties[name] = uuid
  return { type: 'object', properties, required: ['company_id', ...names] } as const
}
