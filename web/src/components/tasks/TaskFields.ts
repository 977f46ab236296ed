// Due dates are picked as calendar days; stored at noon UTC so the day reads the same in every
// timezone from UTC-11 to UTC+11.
export const dayToTimestamp = (day: string): string | null => (day ? `${day}T12:00:00Z` : null)
export const timestampToDay = (iso: string | null): string => (iso ? iso.slice(0, 10) : '')
