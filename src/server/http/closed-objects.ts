// Unknown fields of a JSON body are refused (422 `extra_forbidden`), as SPEC.md says of the
// preferences: a misspelt or unsupported field (`{"assignee": "Ada"}`) would otherwise be
// dropped silently and the request succeed without doing what was asked. Every object of a body
// schema that does not say otherwise gets `additionalProperties: false`; one that says
// `additionalProperties: true` (an import document, free-form settings) stays open. Members of
// an `allOf` are left alone: each would refuse the others' fields.

type Schema = Record<string, any>

const isObjectSchema = (s: Schema) =>
  s.type === 'object' || (Array.isArray(s.type) && s.type.includes('object')) || (s.type === undefined && s.properties !== undefined)

/** A copy of `schema` with every open-by-default object closed. */
export function closeObjects<T>(schema: T): T {
  return close(schema as Schema, true) as T
}

function close(schema: Schema, closable: boolean): Schema {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema
  const out: Schema = { ...schema }
  if (closable && isObjectSchema(out) && out.additionalProperties === undefined && out.patternProperties === undefined) {
    out.additionalProperties = false
  }
  if (out.properties) out.properties = Object.fromEntries(Object.entries<Schema>(out.properties).map(([k, v]) => [k, close(v, true)]))
  if (out.items) out.items = Array.isArray(out.items) ? out.items.map((i: Schema) => close(i, true)) : close(out.items, true)
  for (const key of ['anyOf', 'oneOf'] as const) if (Array.isArray(out[key])) out[key] = out[key].map((s: Schema) => close(s, true))
  // allOf members describe one object together: their own objects stay open, what is inside them closes.
  if (Array.isArray(out.allOf)) out.allOf = out.allOf.map((s: Schema) => close(s, false))
  return out
}
