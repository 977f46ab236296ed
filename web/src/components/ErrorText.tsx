import type { ReactNode } from 'react'
import { errorLines, isRetryable } from '../lib/errors.ts'

interface Props {
  error: unknown
  /** Offered as "Try again" when trying again may help (the server unreachable or failing). */
  retry?: () => void
  /** The way out when the thing asked for is not there, such as a link back to its list. */
  back?: ReactNode
}

/** An error in words, announced to screen readers, with a way out; renders nothing without an error. */
export function ErrorText({ error, retry, back }: Props) {
  if (!error) return null
  const lines = errorLines(error)
  return (
    <div className="error" role="alert">
      {lines.length === 1 ? lines[0] : (
        <ul style={{ margin: 0, paddingLeft: 18 }}>
          {lines.map((line) => <li key={line}>{line}</li>)}
        </ul>
      )}
      {((retry && isRetryable(error)) || back) && (
        <div className="actions" style={{ marginTop: 8 }}>
          {retry && isRetryable(error) && <button type="button" onClick={retry}>Try again</button>}
          {back}
        </div>
      )}
    </div>
  )
}
