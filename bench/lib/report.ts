import type { Machine } from './machine.ts'
import type { LoadResult } from './stats.ts'

/** One target of the benchmark issue and whether this run met it (null: not measured). */
export interface Verdict {
  target: string
  measured: string
  met: boolean | null
}

/** A workload's part of the report: a table of figures, its verdicts and notes. */
export interface Section {
  title: string
  columns: string[]
  rows: string[][]
  verdicts: Verdict[]
  notes: string[]
  /** Further tables, each under a title of its own, after the notes. */
  subtables?: { title: string; columns: string[]; rows: string[][] }[]
}

export interface Report {
  mode: string
  startedAt: Date
  finishedAt: Date
  machine: Machine
  busyBefore: { load1: number; testProcesses: number }
  busyAfter: { load1: number; testProcesses: number }
  settings: string[]
  sections: Section[]
}

export const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2))
export const num = (v: number) => (v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(1))
export const pct = (v: number) => `${(v * 100).toFixed(0)}%`

/** The usual columns of a load run: requests/s, p50, p99, errors. */
export function loadCells(r: LoadResult): string[] {
  const errors = r.errors ? `${r.errors} (${Object.entries(r.statuses).map(([s, n]) => `${s}: ${n}`).join(', ')})` : '0'
  return [num(r.rps), ms(r.p50), ms(r.p99), errors]
}
export const LOAD_COLUMNS = ['requests/s', 'p50 ms', 'p99 ms', 'errors']

function table(columns: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`
  return [line(columns), line(columns.map(() => '---')), ...rows.map(line)].join('\n')
}

export function renderReport(r: Report): string {
  const m = r.machine
  const verdicts = r.sections.flatMap((s) => s.verdicts.map((v) => [s.title, v.target, v.measured, v.met === null ? 'not measured' : v.met ? 'met' : 'MISSED']))
  const out = [
    '# Shopfloor benchmark results',
    '',
    `Written by \`bench/run.ts\` in ${r.mode} mode. Started ${r.startedAt.toISOString()}, finished ${r.finishedAt.toISOString()} ` +
      `(${Math.round((r.finishedAt.getTime() - r.startedAt.getTime()) / 1000)} s). How to read and rerun it: docs/benchmarks.md.`,
    '',
    '## Machine',
    '',
    table(['item', 'value'], [
      ['CPU', `${m.cpu}, ${m.cores} cores`],
      ['memory', `${m.memoryGiB} GiB`],
      ['kernel', m.kernel],
      ['Node.js', m.node],
      ['PostgreSQL', m.postgres],
      ['Shopfloor revision', m.revision],
      ['load average (1 min) before / after', `${r.busyBefore.load1} / ${r.busyAfter.load1}`],
      ['other test processes before / after', `${r.busyBefore.testProcesses} / ${r.busyAfter.testProcesses}`],
    ]),
    '',
    '## Settings',
    '',
    ...r.settings.map((s) => `- ${s}`),
    '',
    '## Targets',
    '',
    table(['workload', 'target', 'measured', 'verdict'], verdicts),
    '',
  ]
  for (const s of r.sections) {
    out.push(`## ${s.title}`, '')
    if (s.rows.length) out.push(table(s.columns, s.rows), '')
    for (const n of s.notes) out.push(`- ${n}`)
    if (s.notes.length) out.push('')
    for (const t of s.subtables ?? []) out.push(`### ${t.title}`, '', table(t.columns, t.rows), '')
  }
  return `${out.join('\n').trimEnd()}\n`
}
