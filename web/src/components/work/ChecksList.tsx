import type { CheckResult } from '#src/client/types.ts'
import { Badge } from '../Badge.tsx'

/** A run's checks in order: status, exit code, time, and each one's output tail on demand (open when it did not pass). */
export function ChecksList({ checks }: { checks: CheckResult[] }) {
  if (!checks.length) return null
  return (
    <ul className="work-checks" aria-label="Checks">
      {checks.map((check) => (
        <li key={check.name}>
          <details open={check.status === 'failed' || check.status === 'timed_out'}>
            <summary>
              <Badge value={check.status} /> <strong>{check.name}</strong>
              <span className="muted small"> {check.exit_code !== null ? `exit code ${check.exit_code} · ` : ''}{formatMs(check.duration_ms)}</span>
            </summary>
            {check.output_tail ? <pre className="work-output">{check.output_tail}</pre> : <p className="muted small">No output.</p>}
          </details>
        </li>
      ))}
    </ul>
  )
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`
}
