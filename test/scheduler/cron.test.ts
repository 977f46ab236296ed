import { describe, expect, it } from 'vitest'
import { parseSchedule } from '../../src/scheduler/cron.ts'

describe('cron expressions', () => {
  it('reads 5 fields, or 6 with seconds, in UTC', () => {
    const daily = parseSchedule('0 9 * * *')
    expect(daily.nextSlot(new Date('2030-01-01T08:59:59Z'))).toEqual(new Date('2030-01-01T09:00:00Z'))
    expect(daily.nextSlot(new Date('2030-01-01T09:00:00Z'))).toEqual(new Date('2030-01-02T09:00:00Z'))
    const tenSeconds = parseSchedule(' */10 * * * * * ')
    expect(tenSeconds.nextSlot(new Date('2030-01-01T00:00:01Z'))).toEqual(new Date('2030-01-01T00:00:10Z'))
  })

  it('rejects anything else', () => {
    for (const bad of ['', 'every morning', '* * * *', '* * * * * * *', '61 * * * *', '0 25 * * *']) {
      expect(() => parseSchedule(bad), bad).toThrow()
    }
  })

  it('treats a run within 50 seconds, or half the interval if shorter, as a duplicate', () => {
    const at = (iso: string) => new Date(iso)
    expect(parseSchedule('0 9 * * *').duplicateWindowMs(at('2030-01-01T09:00:00Z'))).toBe(50_000)
    expect(parseSchedule('* * * * *').duplicateWindowMs(at('2030-01-01T09:00:00Z'))).toBe(30_000)
    expect(parseSchedule('*/10 * * * * *').duplicateWindowMs(at('2030-01-01T09:00:10Z'))).toBe(5_000)
    // Uneven slots: the shorter gap, before or after, decides.
    expect(parseSchedule('0,10 * * * * *').duplicateWindowMs(at('2030-01-01T09:00:10Z'))).toBe(5_000)
    expect(parseSchedule('0,10 * * * * *').duplicateWindowMs(at('2030-01-01T09:00:00Z'))).toBe(5_000)
  })
})
