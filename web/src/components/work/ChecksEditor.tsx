import type { CheckInput } from '#src/client/types.ts'
import './work.css'

/**
 * A project's checks, edited in place: a name, a command (run by `/bin/sh -c` in the run's
 * worktree, on runners started with --allow-checks) and a timeout in seconds, each row removable.
 * The limits are the API's (name 1-60, command 1-2,000 characters, 1-3,600 s).
 */
export function ChecksEditor({ checks, onChange }: { checks: CheckInput[]; onChange: (checks: CheckInput[]) => void }) {
  const set = (i: number, patch: Partial<CheckInput>) => onChange(checks.map((c, j) => (j === i ? { ...c, ...patch } : c)))
  return (
    <fieldset className="work-checks-editor">
      <legend>Checks</legend>
      <p className="muted small">Run in the task's worktree after each agent, by runners started with <code>--allow-checks</code>. A failing check sends the work back to the agent.</p>
      {checks.map((check, i) => (
        <div key={i} className="form-grid" role="group" aria-label={`Check ${i + 1}`}>
          <label className="field">Name<input required maxLength={60} value={check.name} onChange={(e) => set(i, { name: e.target.value })} /></label>
          <label className="field">Command<input required maxLength={2000} className="mono" placeholder="npm test" value={check.command} onChange={(e) => set(i, { command: e.target.value })} /></label>
          <label className="field">Timeout (s)
            <input type="number" min={1} max={3600} value={check.timeout_seconds ?? 600} onChange={(e) => set(i, { timeout_seconds: Number(e.target.value) })} />
          </label>
          <div className="field" style={{ alignSelf: 'end' }}>
            <button type="button" className="link" onClick={() => onChange(checks.filter((_, j) => j !== i))}>Remove {check.name || `check ${i + 1}`}</button>
          </div>
        </div>
      ))}
      {checks.length < 20 && <button type="button" onClick={() => onChange([...checks, { name: '', command: '', timeout_seconds: 600 }])}>Add a check</button>}
    </fieldset>
  )
}
