// Value conversions shared by both drivers, so rows look the same whatever the database.
//
// Timestamps stay strings: a JavaScript Date would drop the microseconds that the activity
// cursor relies on. The database session runs in UTC, so PostgreSQL's text form
// `2026-01-02 03:04:05.123456+00` only needs to be reshaped into ISO 8601.

export const OID = { int8: 20, numeric: 1700, timestamptz: 1184, timestamp: 1114, date: 1082 } as const

export function isoTimestamp(value: string): string {
  // "2026-01-02 03:04:05.123456+00" -> "2026-01-02T03:04:05.123456+00:00"
  let out = value.replace(' ', 'T')
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
