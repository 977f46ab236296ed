// Human-readable rendering: aligned tables, indented trees, key/value details. Machine output
// (--json) never goes through here.
import { nextFire } from '../../contract/schedule.ts'

export interface Column<R> {
  header: string
  value: (row: R) => string | number | null | undefined
  /** Right-aligned (numbers, money). */
  right?: boolean
}

export function table<R>(rows: readonly R[], columns: readonly Column<R>[], empty = '(none)'): string {
  if (rows.length === 0) return empty
  const cells = rows.map((row) => columns.map((c) => oneLine(c.value(row))))
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i].length)))
  const line = (values: string[]) =>
    values
      .map((v, i) => (columns[i].right ? v.padStart(widths[i]) : i === values.length - 1 ? v : v.padEnd(widths[i])))
      .join('  ')
      .trimEnd()
  return [line(columns.map((c) => c.header.toUpperCase())), ...cells.map(line)].join('\n')
}

export interface TreeNode {
  label: string
  children: TreeNode[]
}

/** Roots at the left margin, children drawn with box characters. */
export function tree(roots: readonly TreeNode[], empty = '(none)'): string {
  if (roots.length === 0) return empty
  const lines: string[] = []
  const walk = (node: TreeNode, prefix: string, last: boolean, root: boolean) => {
    lines.push(root ? node.label : `${prefix}${last ? '└── ' : '├── '}${node.label}`)
    const childPrefix = root ? '' : prefix + (last ? '    ' : '│   ')
    node.children.forEach((child, i) => walk(child, childPrefix, i === node.children.length - 1, false))
  }
  roots.forEach((root) => walk(root, '', true, true))
  return lines.join('\n')
}

/** `Label: value` lines, labels aligned; null and undefined values are shown as `-`. */
export function details(pairs: readonly [string, unknown][]): string {
  const width = Math.max(...pairs.map(([label]) => label.length))
  return pairs.map(([label, value]) => `${`${label}:`.padEnd(width + 1)} ${oneLine(value as string)}`).join('\n')
}

export function money(cents: number | null | undefined): string {
  if (cents === null || cents === undefined) return '-'
  const sign = cents < 0 ? '-' : ''
  const abs = Math.abs(cents)
  return `${sign}$${Math.floor(abs / 100).toLocaleString('en-US')}.${String(abs % 100).padStart(2, '0')}`
}

/** A budget of 0 means no limit. */
export function budget(cents: number): string {
  return cents === 0 ? 'no limit' : money(cents)
}

/** `2026-11-21 11:20` in UTC: short, sortable and the same on every machine. */
export function time(ts: string | null | undefined): string {
  if (!ts) return '-'
  const date = new Date(ts)
  return Number.isNaN(date.getTime()) ? ts : date.toISOString().slice(0, 16).replace('T', ' ')
}

export function date(ts: string | null | undefined): string {
  return ts ? time(ts).slice(0, 10) : '-'
}

function oneLine(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '-'
  return String(value).replace(/\s*\n\s*/g, ' ')
}

/** How long ago, in words: `just now`, `40s ago`, `5 min ago`, `3 h ago`, `2 days ago`. */
export function ago(ts: string | null | undefined, now = Date.now()): string {
  if (!ts) return '-'
  const seconds = Math.round((now - Date.parse(ts)) / 1000)
  if (Number.isNaN(seconds)) return ts
  if (seconds < 5) return 'just now'
  if (seconds < 60) return `${seconds}s ago`
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`
  if (seconds < 48 * 3600) return `${Math.floor(seconds / 3600)} h ago`
  return `${Math.floor(seconds / 86400)} days ago`
}

/** When a cron fires next (UTC), as the scheduler reads it; "invalid schedule" (and why) when it cannot. */
export function nextFireText(cron: string, why = false): string {
  const next = nextFire(cron)
  if ('at' in next) return next.at ? time(next.at) : 'never'
  return why ? `invalid schedule: ${next.error}` : 'invalid schedule'
}
