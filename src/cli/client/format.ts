// Human-readable rendering: aligned tables, indented trees, key/value details, and the text
// safety every human line gets before it reaches a terminal. Machine output (--json) never
// goes through here.
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
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => displayWidth(r[i]))))
  // Padded by terminal columns, not by UTF-16 code units: a CJK character or an emoji takes
  // two columns, a combining accent none (padStart/padEnd would count 1, 2 and 1).
  const pad = (v: string, i: number) => ' '.repeat(Math.max(0, widths[i] - displayWidth(v)))
  const line = (values: string[]) =>
    values
      .map((v, i) => (columns[i].right ? pad(v, i) + v : i === values.length - 1 ? v : v + pad(v, i)))
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

/**
 * A value on one line of a table or details: line breaks and tabs (whose width depends on the
 * column) become a space, and it is made visible here already, so widths are those shown.
 */
function oneLine(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '-'
  return visible(String(value).replace(/\s*\n\s*|\t/g, ' '))
}

/**
 * Text from the server (titles, names, comment bodies, transcripts...) made safe for a terminal:
 * C0 and C1 control characters would otherwise act on it (ESC [ sequences recolour or move the
 * cursor, OSC 52 writes the clipboard, BEL rings, a carriage return overwrites the line), so they
 * are shown instead: C0 and DEL in caret notation (^[, ^G, ^M, ^?), C1 as U+FFFD. So are the
 * bidirectional embeddings, overrides and isolates (U+202A-202E, U+2066-2069): in a terminal
 * that orders right-to-left text they make a line read otherwise than it is. Newline and tab
 * stay, for multi-line bodies; a CRLF line end becomes a newline. Every human line the client
 * writes, on stdout and stderr, goes through this (Cli.print, Cli.emit, Cli.warn, the error line).
 */
export function visible(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0)
    if (code >= 0x80) return '\ufffd'
    return `^${String.fromCharCode(code ^ 0x40)}`
  })
}

// East Asian Wide and Fullwidth blocks (Unicode EastAsianWidth.txt, W and F, condensed to the
// blocks in use); emoji shown as emoji are caught by \p{Emoji_Presentation} below.
const WIDE = /^[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{16fe0}-\u{16fe4}\u{17000}-\u{18cff}\u{1b000}-\u{1b2ff}\u{1f200}-\u{1f2ff}\u{20000}-\u{2fffd}\u{30000}-\u{3fffd}]/u
const EMOJI = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\ufe0f/u
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]/u
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' })

/**
 * How many terminal columns `text` takes: per user-perceived character (grapheme), 2 for East
 * Asian Wide/Fullwidth and emoji, 0 for a lone combining mark or format character, else 1; the
 * marks joined to a character add nothing. Written here rather than taken from a package:
 * string-width, the usual one, needs Node 22 in its current version, and this is all a table
 * needs (text passed through visible(), so no control characters).
 */
export function displayWidth(text: string): number {
  // Plain ASCII, the common case, needs no segmenting.
  if (/^[\x20-\x7e]*$/.test(text)) return text.length
  let width = 0
  for (const { segment } of graphemes.segment(text)) {
    if (EMOJI.test(segment) || WIDE.test(segment)) width += 2
    else if (!ZERO_WIDTH.test(segment)) width += 1
  }
  return width
}

/** The start of an id, as lists show it (8 characters); the finders take it (or 4 or more). */
export function shortId(id: string): string {
  return id.slice(0, 8)
}

/** `1 company`, `2 companies`, `0 entries`: a count with its noun, in English. */
export function plural(count: number, noun: string): string {
  if (count === 1) return `${count} ${noun}`
  if (/[^aeiou]y$/.test(noun)) return `${count} ${noun.slice(0, -1)}ies`
  if (/(s|x|z|ch|sh)$/.test(noun)) return `${count} ${noun}es`
  return `${count} ${noun}s`
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
