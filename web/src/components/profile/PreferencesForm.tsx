// Appearance and formatting preferences; each change is saved (and applied) at once.
import type { Preferences, PreferencesPatch } from '#src/client/types.ts'
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

/** A text preference saved when the field is left, if it changed. */
function TextPreference({ label, hint, value, onSave, placeholder }: { label: string; hint?: string; value: string | undefined; onSave: (v: string | null) => void; placeholder?: string }) {
  return (
    <label className="field">
      {label} {hint && <span className="hint">{hint}</span>}
      <input key={value ?? ''} defaultValue={value ?? ''} placeholder={placeholder}
        onBlur={(e) => e.target.value.trim() !== (value ?? '') && onSave(e.target.value.trim() || null)} />
    </label>
  )
}

export function PreferencesForm({ preferences }: { preferences: Preferences }) {
  const save = useSavePreferences()
  const set = (patch: PreferencesPatch) => save.mutate(patch)
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone
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
        <TextPreference label="Locale" hint="(e.g. en-GB)" placeholder={navigator.language} value={preferences.locale} onSave={(locale) => set({ locale })} />
        <TextPreference label="Timezone" hint="(e.g. Europe/Paris)" placeholder={browserZone} value={preferences.timezone} onSave={(timezone) => set({ timezone })} />
        <TextPreference label="Currency" hint="(e.g. EUR)" placeholder="USD" value={preferences.currency} onSave={(currency) => set({ currency: currency?.toUpperCase() ?? null })} />
      </div>
      <label className="field check">
        <input type="checkbox" checked={preferences.sidebar_collapsed ?? false} onChange={(e) => set({ sidebar_collapsed: e.target.checked })} /> Collapse the sidebar
      </label>
    </section>
  )
}
