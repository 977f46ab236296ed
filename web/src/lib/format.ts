// Dates, money and numbers shown the way the user's preferences ask (locale, timezone, date
// style, currency). One Formatter is made per preferences value and shared through context.
import type { Preferences } from '#src/client/types.ts'

export interface Formatter {
  date(iso: string | null | undefined): string
  dateTime(iso: string | null | undefined): string
  relative(iso: string | null | undefined): string
  money(cents: number | null | undefined): string
  number(value: number): string
  day(yyyyMmDd: string): string
}

/** True for a time zone this browser knows, under any of its names ("Asia/Calcutta" too). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

function safeTimeZone(zone: string | undefined): string | undefined {
  return zone && isTimeZone(zone) ? zone : undefined
}

/** The locale in its canonical form, or undefined when it is no language tag this browser reads. */
export function safeLocale(locale: string | undefined): string | undefined {
  if (!locale) return undefined
  try {
    return Intl.getCanonicalLocales(locale)[0]
  } catch {
    return undefined
  }
}

export function makeFormatter(preferences: Preferences = {}): Formatter {
  const locale = safeLocale(preferences.locale)
  const timeZone = safeTimeZone(preferences.timezone)
  const style = preferences.date_style ?? 'medium'
  const dateFmt = new Intl.DateTimeFormat(locale, { dateStyle: style, timeZone })
  const dateTimeFmt = new Intl.DateTimeFormat(locale, { dateStyle: style, timeStyle: 'short', timeZone })
  const dayFmt = new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', timeZone: 'UTC' })
  const numberFmt = new Intl.NumberFormat(locale)
  const relativeFmt = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' })
  let moneyFmt: Intl.NumberFormat
  try {
    moneyFmt = new Intl.NumberFormat(locale, { style: 'currency', currency: preferences.currency ?? 'USD' })
  } catch {
    moneyFmt = new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD' })
  }
  const parse = (iso: string) => new Date(iso)
  // The calendar day of an instant where the person is, as a day number: "tomorrow" is the next
  // date on their calendar, not any time 12 to 36 hours away.
  const ymdFmt = new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit', timeZone })
  const dayNumber = (date: Date) => Date.parse(`${ymdFmt.format(date)}T00:00:00Z`) / 86_400_000

  return {
    date: (iso) => (iso ? dateFmt.format(parse(iso)) : '—'),
    dateTime: (iso) => (iso ? dateTimeFmt.format(parse(iso)) : '—'),
    relative(iso) {
      if (!iso) return '—'
      const seconds = (parse(iso).getTime() - Date.now()) / 1000
      const steps: [Intl.RelativeTimeFormatUnit, number][] = [['second', 60], ['minute', 60], ['hour', 24], ['day', 30], ['month', 12], ['year', Infinity]]
      let value = seconds
      for (const [unit, size] of steps) {
        if (Math.abs(value) < size) {
          if (unit === 'day') return relativeFmt.format(dayNumber(parse(iso)) - dayNumber(new Date()), 'day')
          return relativeFmt.format(Math.round(value), unit)
        }
        value /= size
      }
      return dateFmt.format(parse(iso))
    },
    money: (cents) => moneyFmt.format((cents ?? 0) / 100),
    number: (value) => numberFmt.format(value),
    // Series days are UTC calendar dates (YYYY-MM-DD); show them as such.
    day: (d) => dayFmt.format(new Date(`${d}T00:00:00Z`)),
  }
}

/** "in_progress" -> "In progress" */
export function humanize(value: string): string {
  const text = value.replace(/_/g, ' ')
  return text.charAt(0).toUpperCase() + text.slice(1)
}

/** Dollars typed by a person -> integer cents; null when not a non-negative amount. */
export function parseCents(text: string): number | null {
  const trimmed = text.trim()
  if (trimmed === '') return 0
  if (!/^\d+(\.\d{1,2})?$/.test(trimmed)) return null
  return Math.round(Number(trimmed) * 100)
}

export function centsToInput(cents: number | null | undefined): string {
  return cents ? (cents / 100).toFixed(2).replace(/\.00$/, '') : ''
}

/** Agent roles as titles people read: "CEO", "QA", "DevOps", "Engineer" (the API keeps them lower case). */
const ROLE_WORDS: Record<string, string> = { ceo: 'CEO', cto: 'CTO', cmo: 'CMO', cfo: 'CFO', coo: 'COO', qa: 'QA', devops: 'DevOps' }
export function roleLabel(role: string): string {
  return ROLE_WORDS[role.toLowerCase()] ?? humanize(role)
}
