import { useState } from 'react'

/** A value to copy (a command, a secret): read-only, selected on focus, with a Copy button. */
export function CopyField({ label, value }: { label: string; value: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'refused'>('idle')
  async function copy() {
    try {
      await navigator.clipboard.writeText(value)
      setState('copied')
    } catch {
      setState('refused')
    }
  }
  return (
    <>
      <div className="row" style={{ flexWrap: 'nowrap' }}>
        <input readOnly aria-label={label} className="mono" value={value} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>{state === 'copied' ? 'Copied' : 'Copy'}</button>
      </div>
      {state === 'refused' && <p className="error small" role="alert">The browser refused to copy; select the text and copy it by hand.</p>}
    </>
  )
}
