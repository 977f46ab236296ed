import { errorLines } from '../lib/errors.ts'

/** An error in words, announced to screen readers; renders nothing without an error. */
export function ErrorText({ error }: { error: unknown }) {
  if (!error) return null
  const lines = errorLines(error)
  return (
    <div className="error" role="alert">
      {lines.length === 1 ? lines[0] : (
        <ul style={{ margin: 0, paddingLeft: 18 }}>
          {lines.map((line) => <li key={line}>{line}</li>)}
        </ul>
      )}
    </div>
  )
}
