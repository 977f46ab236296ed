import { humanize } from '../lib/format.ts'

/** A status, priority or type shown as a coloured pill. */
export function Badge({ value }: { value: string }) {
  return <span className={`badge ${value}`}>{humanize(value)}</span>
}
