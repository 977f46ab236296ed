// Value conversions shared by both drivers, so rows look the same whatever the database.
//
// Timestamps stay strings: a JavaScript Date would drop the microseconds that the activity
// cursor relies on. The database session runs in UTC, so PostgreSQL's text form
// `2026-01-02 03:04:05.123456+00` only needs to be reshaped into ISO 8601. That text drops
// trailing zeros of the fraction (`05.5+00`, `05+00`), and the embedded database's clock
// often has milliseconds only, so the fraction is padded: every timestamp has six digits.

export const OID = { int8: 20, numeric: 1700, timestamptz: 1184, timestamp: 1114, date: 1082 } as const

export function isoTimestamp(value: string): string {
  // "2026-01-02 03:04:05.123456+00" -> "2026-01-02T03:04:05.123456+00:00"
  let out = value.replace(' ', 'T')
  // "...T03:04:05.5+00" -> "...T03:04:05.500000+00"; "...T03:04:05+00" -> "...T03:04:05.000000+00"
  out = out.replace(/T(\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?/, (_m, time: string, fraction = '') => `T${time}.${fraction.padEnd(6, '0')}`)
  if (/[+-]\d\d$/.test(out)) out += ':00'
  else if (!/([+-]\d\d:\d\d|Z)$/.test(out)) out += '+00:00'
  return out
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
}
