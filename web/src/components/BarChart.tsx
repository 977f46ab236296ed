// A small grouped bar chart in SVG: one group per day, one bar per series. Scales to its width;
// each bar has a tooltip and the figures are also given as a hidden table for screen readers.
export interface Series {
  label: string
  color: string
  values: number[]
}

export function BarChart({ labels, series, format }: { labels: string[]; series: Series[]; format: (value: number) => string }) {
  const width = 600
  const height = 180
  const max = Math.max(1, ...series.flatMap((s) => s.values))
  const group = width / Math.max(1, labels.length)
  const bar = Math.max(1, (group * 0.8) / series.length)
  // Label every day up to 14 days, then every few days so the axis stays readable.
  const every = Math.ceil(labels.length / 10)
  return (
    <div className="chart">
      <svg viewBox={`0 0 ${width} ${height}`} preserveAspectRatio="none" role="img" aria-label={series.map((s) => s.label).join(', ')}>
        <line x1={0} x2={width} y1={height} y2={height} stroke="var(--border)" />
        {labels.map((label, day) => (
          <g key={label}>
            {series.map((s, i) => {
              const h = (s.values[day] / max) * (height - 8)
              return (
                <rect key={s.label} x={day * group + group * 0.1 + i * bar} y={height - h} width={bar - 1} height={h} fill={s.color} rx={1}>
                  <title>{`${label} · ${s.label}: ${format(s.values[day])}`}</title>
                </rect>
              )
            })}
          </g>
        ))}
      </svg>
      {/* Day labels in HTML, so the stretched drawing does not stretch the text. */}
      <div className="axis" style={{ gridTemplateColumns: `repeat(${labels.length}, 1fr)` }} aria-hidden>
        {/* Every other label is minor: a phone shows only the major ones, so they do not run together. */}
        {labels.map((label, day) => <span key={label} data-minor={day % (every * 2) !== 0 || undefined}>{day % every === 0 ? label : ''}</span>)}
      </div>
      <div className="legend">
        {series.map((s) => (
          <span key={s.label}><span className="swatch" style={{ background: s.color }} />{s.label} (max {format(Math.max(0, ...s.values))})</span>
        ))}
      </div>
      <table className="sr-only">
        <thead><tr><th>Day</th>{series.map((s) => <th key={s.label}>{s.label}</th>)}</tr></thead>
        <tbody>
          {labels.map((label, day) => (
            <tr key={label}><td>{label}</td>{series.map((s) => <td key={s.label}>{format(s.values[day])}</td>)}</tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
