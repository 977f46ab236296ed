// Appearance and formatting preferences; each change is saved (and applied) at once.
import { useState } from 'react'
import type { Preferences, PreferencesPatch } from '#src/client/types.ts'
import { FIELD_FORMS } from '../../lib/errors.ts'
import { isTimeZone, safeLocale } from '../../lib/format.ts'
import { useSavePreferences } from '../../lib/preferences.tsx'
import { ErrorText } from '../ErrorText.tsx'

const COLORS = ['royal', 'sky', 'slate', 'ink'] as const

function Choice<T extends string>({ label, value, options, onChange }: { label: string; value: T | undefined; options: readonly T[]; onChange: (v: T | null) => void }) {
  return (
    <label className="field">
      {label}
      <select value={value ?? ''} onChange={(e) => onChange((e.target.value || null) as T | null)}>
        <option value="">Default</option>
        {options.map((o) => <option key={o} value={o}>{o.charAt(0).toUpperCase() + o.slice(1)}</option>)}
      </select>
    </label>
  )
}

interface TextPreferenceProps {
  label: string
  hint?: string
  value: string | undefined
  onSave: (v: string | null) => void
  placeholder?: string
  /** What is wrong with a value, said in words; such a value is not saved and stays to be corrected. */
  check?: (v: string) => string | null
}

/** A text preference saved when the field is left, if it changed. */
function TextPreference({ label, hint, value, onSave, placeholder, check }: TextPreferenceProps) {
  const [problem, setProblem] = useState<string | null>(null)
  return (
    <div className="field">
      <label>
        {label} {hint && <span className="hint">{hint}</span>}
        <input key={value ?? ''} defaultValue={value ?? ''} placeholder={placeholder} aria-invalid={problem !== null}
          onBlur={(e) => {
            const text = e.target.value.trim()
            const wrong = text ? (check?.(text) ?? null) : null
            setProblem(wrong)
            if (!wrong && text !== (value ?? '')) onSave(text || null)
          }} />
      </label>
      {problem && <p className="error small" role="alert" style={{ margin: '4px 0 0' }}>{problem}</p>}
    </div>
  )
}

/** A locale the browser cannot read is refused before it is sent (the server checks its form too). */
const languageTagProblem = (tag: string) => (safeLocale(tag) ? null : FIELD_FORMS.locale)

/**
 * The time zone, picked from those the browser knows (and UTC, which it lists under no name of its
 * own), so that none can be saved that does not exist. A zone saved before that it does not list
 * stays shown, said to be none when it is none.
 */
function TimeZoneChoice({ value, onChange }: { value: string | undefined; onChange: (zone: string | null) => void }) {
  const zones = ['UTC', ...Intl.supportedValuesOf('timeZone')]
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone
  return (
    <label className="field">
      Timezone
      <select value={value ?? ''} onChange={(e) => onChange(e.target.value || null)}>
        <option value="">Default ({browserZone})</option>
        {value && !zones.includes(value) && <option value={value}>{isTimeZone(value) ? value : `${value} (not a time zone)`}</option>}
        {zones.map((zone) => <option key={zone} value={zone}>{zone.replaceAll('_', ' ')}</option>)}
      </select>
    </label>
  )
}

export function PreferencesForm({ preferences }: { preferences: Preferences }) {
  const save = useSavePreferences()
  const set = (patch: PreferencesPatch) => save.mutate(patch)
  return (
    <section className="panel" aria-label="Preferences">
      <h2>Preferences</h2>
      <ErrorText error={save.error} />
      <div className="form-grid">
        <Choice label="Theme" value={preferences.theme} options={['light', 'dark', 'system'] as const} onChange={(theme) => set({ theme })} />
        <Choice label="Accent" value={preferences.accent} options={COLORS} onChange={(accent) => set({ accent })} />
        <Choice label="Density" value={preferences.density} options={['comfortable', 'compact'] as const} onChange={(density) => set({ density })} />
        <Choice label="Date style" value={preferences.date_style} options={['short', 'medium', 'long'] as const} onChange={(date_style) => set({ date_style })} />
        <Choice label="Avatar colour" value={preferences.avatar_color} options={COLORS} onChange={(avatar_color) => set({ avatar_color })} />
        <TextPreference label="Locale" hint="(e.g. en-GB)" placeholder={navigator.language} value={preferences.locale} check={languageTagProblem} onSave={(locale) => set({ locale })} />
        <TimeZoneChoice value={preferences.timezone} onChange={(timezone) => set({ timezone })} />
        <TextPreference label="Currency" hint="(e.g. EUR)" placeholder="USD" value={preferences.currency} onSave={(currency) => set({ currency: currency?.toUpperCase() ?? null })} />
      </div>
      <label className="field check">
        <input type="checkbox" checked={preferences.sidebar_collapsed ?? false} onChange={(e) => set({ sidebar_collapsed: e.target.checked })} /> Collapse the sidebar
      </label>
    </section>
  )
}
