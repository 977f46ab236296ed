// Value conversions shared by both drivers, so rows look the same whatever the database.
//
// Timestamps stay strings: a JavaScript Date would drop the microseconds that the activity
// cursor relies on. The database session runs in UTC, so PostgreSQL's text form
// `2026-01-02 03:04:05.123456+00` only needs to be reshaped into ISO 8601. That text drops
// trailing zeros of the fraction (`05.5+00`, `05+00`), and the embedded database's clock
// often has milliseconds only, so the fraction is padded: every timestamp has six digits.

export const OID = { int8: 20, numeric: 1700, timestamptz: 1184, timestamp: 1114, date: 1082, json: 114, jsonb: 3802 } as const

export function isoTimestamp(value: string): string {
  // "2026-01-02 03:04:05.123456+00" -> "2026-01-02T03:04:05.123456+00:00"
  // Reshaped by position, without regular expressions: a list of 500 tasks has 2,000 stamps,
  // and the expressions were a tenth of its CPU (docs/benchmarks.md, workload 8). Anything of
  // another shape (a year beyond 9999, BC, no offset) takes the general path.
  if (value.length >= 22 && value.charCodeAt(10) === 32 && value.charCodeAt(19) !== 58) {
    let end = 19
    let fraction = '000000'
    if (value.charCodeAt(19) === 46) {
      end = 20
      while (end < value.length && isDigit(value.charCodeAt(end))) end++
      const digits = end - 20
      if (digits < 1 || digits > 6) return reshape(value)
      fraction = digits === 6 ? value.slice(20, end) : value.slice(20, end).padEnd(6, '0')
    }
    const sign = value.charCodeAt(end)
    const zoneLength = value.length - end
    if ((sign === 43 || sign === 45) && (zoneLength === 3 || (zoneLength === 6 && value.charCodeAt(end + 3) === 58))) {
      return `${value.slice(0, 10)}T${value.slice(11, 19)}.${fraction}${value.slice(end)}${zoneLength === 3 ? ':00' : ''}`
    }
  }
  return reshape(value)
}

const isDigit = (code: number) => code >= 48 && code <= 57

function reshape(value: string): string {
  let out = value.replace(' ', 'T')
  // "...T03:04:05.5+00" -> "...T03:04:05.500000+00"; "...T03:04:05+00" -> "...T03:04:05.000000+00"
  out = out.replace(/T(\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?/, (_m, time: string, fraction = '') => `T${time}.${fraction.padEnd(6, '0')}`)
  if (/[+-]\d\d$/.test(out)) out += ':00'
  else if (!/([+-]\d\d:\d\d|Z)$/.test(out)) out += '+00:00'
  return out
}

// Timestamps inside JSON built by SQL (to_jsonb of a row, transcript stamps) come as
// "...T03:04:05.5+00:00": the same six digits are restored there, in the text before it is
// parsed (a string value that is a timestamp, never a key: a timestamp's text has nothing to
// escape, and a quote inside a string is escaped, so a match is always a whole value). The
// text is searched first, so JSON without such a value (most of it) is parsed as it is. A
// reviver did the same at five times the cost of the parse: 125 against 25 µs for a run
// context of 10 KB, which a claim reads.
const SHORT_FRACTION = /T\d\d:\d\d:\d\d(?:\.\d{1,5})?[+-]\d\d:\d\d"/
const SHORT_STAMP_VALUE = /"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,5}))?([+-]\d\d:\d\d)"(?!\s*:)/g

/** JSON text with every timestamp value given its six digits, as the API writes timestamps. */
export function fullStamps(text: string): string {
  if (!SHORT_FRACTION.test(text)) return text
  return text.replace(SHORT_STAMP_VALUE, (_m, time: string, fraction: string | undefined, zone: string) => `"${time}.${(fraction ?? '').padEnd(6, '0')}${zone}"`)
}

export function parseJson(text: string): unknown {
  return JSON.parse(fullStamps(text))
}

/** Counts and sums: PostgreSQL sends bigint and numeric as text; our values fit a double. */
export function toNumber(value: string): number {
  return Number(value)
}

export const parsers: Record<number, (value: string) => unknown> = {
  [OID.int8]: toNumber,
  [OID.numeric]: toNumber,
  [OID.timestamptz]: isoTimestamp,
  [OID.timestamp]: isoTimestamp,
  [OID.date]: (v: string) => v,
  [OID.json]: parseJson,
  [OID.jsonb]: parseJson,
}
