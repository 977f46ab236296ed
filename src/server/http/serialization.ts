import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'

// Fastify's own serializer (fast-json-stringify, from each route's response schemas), compiled on
// the first answer of each route and status rather than when the server starts: compiling all of
// them took about 0.2 s of every start, and most processes answer few of them.
const buildDefault = SerializerSelector()

/** Fastify's `schemaController.compilersFactory.buildSerializer`, compiling on first use. */
export const buildSerializer: typeof buildDefault = (externalSchemas, options) => {
  const compile = buildDefault(externalSchemas, options)
  return (route) => {
    let serialize: ((data: unknown) => string) | undefined
    return (data: unknown) => (serialize ??= compile(route) as (data: unknown) => string)(data)
  }
}
