// Spend control rules without a browser: counts typed in the agent form, and the forecast's budget-reached day in words.
import { describe, expect, it } from 'vitest'
import { budgetReachedText, parseCount, thisMonth } from './spend.ts'
import { makeFormatter } from './format.ts'

const format = makeFormatter({ locale: 'en-US' })
const now = new Date('2026-11-15T10:00:00Z')

describe('budget reached, in words', () => {
  it('names the day it was reached, or will be at this pace, or says it is not', () => {
    expect(budgetReachedText(format, 5000, '2026-11-12', '2026-11', now)).toBe('reached its budget on Nov 12')
    expect(budgetReachedText(format, 5000, '2026-11-15', '2026-11', now)).toBe('reached its budget on Nov 15')
    expect(budgetReachedText(format, 5000, '2026-11-28', '2026-11', now)).toBe('reaches its budget around Nov 28 at this pace')
    expect(budgetReachedText(format, 5000, null, '2026-11', now)).toBe('does not reach its budget this month at this pace')
  })

  it('speaks of a month that is over without a pace, and of no budget as such', () => {
    expect(budgetReachedText(format, 5000, null, '2026-10', now)).toBe('did not reach its budget')
    expect(budgetReachedText(format, 5000, '2026-10-03', '2026-10', now)).toBe('reached its budget on Oct 3')
    expect(budgetReachedText(format, 0, null, '2026-11', now)).toBe('no budget to reach')
    expect(thisMonth(now)).toBe('2026-11')
  })
})

describe('counts typed by people', () => {
  it('takes blank as 0 and whole numbers up to what the server stores, nothing else', () => {
    expect(parseCount('')).toBe(0)
    expect(parseCount(' 20 ')).toBe(20)
    expect(parseCount('2147483647')).toBe(2147483647)
    expect(parseCount('2147483648')).toBeNull()
    expect(parseCount('1.5')).toBeNull()
    expect(parseCount('-1')).toBeNull()
    expect(parseCount('lots')).toBeNull()
  })
})
