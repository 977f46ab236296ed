import { describe, expect, it } from 'vitest'
import { isoTimestamp } from '../../src/server/db/types.ts'

// PostgreSQL's text form of a timestamp, reshaped into the ISO 8601 every answer carries:
// six fraction digits and a full offset, whatever the database dropped.
describe('isoTimestamp', () => {
  it.each([
    ['2026-01-02 03:04:05.123456+00', '2026-01-02T03:04:05.123456+00:00'],
    ['2026-01-02 03:04:05.5+00', '2026-01-02T03:04:05.500000+00:00'],
    ['2026-01-02 03:04:05.12+00', '2026-01-02T03:04:05.120000+00:00'],
    ['2026-01-02 03:04:05+00', '2026-01-02T03:04:05.000000+00:00'],
    ['2026-01-02 03:04:05.123456-03', '2026-01-02T03:04:05.123456-03:00'],
    ['2026-01-02 03:04:05.1+05:30', '2026-01-02T03:04:05.100000+05:30'],
    // timestamp without time zone: read as UTC
    ['2026-01-02 03:04:05.123456', '2026-01-02T03:04:05.123456+00:00'],
    ['2026-01-02 03:04:05', '2026-01-02T03:04:05.000000+00:00'],
    // shapes the fast path does not know go the general way
    ['12026-01-02 03:04:05+00', '12026-01-02T03:04:05.000000+00:00'],
  ])('%s -> %s', (text, iso) => {
    expect(isoTimestamp(text)).toBe(iso)
  })
})
