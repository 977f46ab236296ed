import type { FastifyInstance } from 'fastify'
import { AppError, validationError } from '../errors.ts'

// Checks every request's input gets, whatever its route, before any schema or handler sees it.

/** Deepest nesting of arrays and objects a JSON body may have. */
export const MAX_JSON_DEPTH = 64

/**
 * True when the JSON text nests arrays or objects deeper than `max`. Read before parsing:
 * thousands of nested arrays parse, but then overflow the stack of whatever walks them
 * (validation, serialisation) and the answer escapes the envelope.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // backslash: skip the escaped character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

/**
 * Where the first NUL character (\u0000) is in a value, as a location ([...loc, key, index]),
 * or null. PostgreSQL cannot store NUL in text or jsonb, so it is refused at the door for
 * every field, including keys.
 */
export function findNul(value: unknown, loc: (string | number)[]): (string | number)[] | null {
  if (typeof value === 'string') return value.includes('\u0000') ? loc : null
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], [...loc, i])
      if (found) return found
    }
    return null
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) return [...loc, key]
      const found = findNul(item, [...loc, key])
      if (found) return found
    }
  }
  return null
}

export const NUL_MESSAGE = 'String should not contain the NUL character (\\u0000)'

/** The most a free-text field may hold, in bytes of UTF-8 (API-DECISIONS: "Limits that protect every company"). */
export const MAX_TEXT_BYTES = 1024 * 1024
/** The free-text fields of request bodies: comment `body`, descriptions, instructions, mission, a run's summary and error. */
const TEXT_FIELDS = ['body', 'description', 'instructions', 'mission', 'summary', 'error']

function tooLong(value: unknown): boolean {
  // Three bytes of UTF-8 at most per UTF-16 unit: most values are settled without counting.
  return typeof value === 'string' && value.length * 3 > MAX_TEXT_BYTES && Buffer.byteLength(value) > MAX_TEXT_BYTES
}

/** The first free-text field of a body over MAX_TEXT_BYTES (a transcript entry's `text` included), or null. */
export function oversizedField(body: unknown): string | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null
  const record = body as Record<string, unknown>
  for (const field of TEXT_FIELDS) if (tooLong(record[field])) return field
  if (Array.isArray(record.transcript)) {
    for (const [i, entry] of record.transcript.entries()) if (tooLong((entry as { text?: unknown })?.text)) return `transcript.${i}.text`
  }
  return null
}

/**
 * Refuses a NUL character anywhere in the path, the query or the body: 422 naming the field;
 * and a free-text field over 1 MiB: 413 PAYLOAD_TOO_LARGE naming it (one agent's 9 MiB comments
 * would otherwise reach every reader of the task and every prompt that quotes it).
 */
export function installInputGuards(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const oversized = oversizedField(request.body)
    if (oversized) {
      throw new AppError('PAYLOAD_TOO_LARGE', `${oversized} is larger than 1 MiB, the most a text field may hold`, { field: oversized, limit_bytes: MAX_TEXT_BYTES })
    }
    const parts: [string, unknown][] = [
      ['path', request.params],
      ['query', request.query],
      ['body', request.body],
    ]
    for (const [where, value] of parts) {
      const loc = findNul(value, [where])
      if (loc) {
        const input = loc.slice(1).reduce<any>((v, key) => v?.[key], value)
        throw validationError([{ loc, message: NUL_MESSAGE, type: 'string_nul', input: typeof input === 'string' ? input : undefined }])
      }
    }
  })
}
