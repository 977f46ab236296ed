// Saved task views (preferences.tasks.saved_views): a name for a filter query string.
import { useState } from 'react'
import { useSavePreferences } from '../../lib/preferences.tsx'
import { useMe } from '../../lib/queries.ts'
import { ErrorText } from '../ErrorText.tsx'

const MAX_VIEWS = 20

export function SavedViews({ query, onApply }: { query: string; onApply: (query: string) => void }) {
  const me = useMe()
  const save = useSavePreferences()
  const views = me.data?.preferences.tasks?.saved_views ?? []
  const [naming, setNaming] = useState(false)
  const [name, setName] = useState('')

  function add() {
    const trimmed = name.trim()
    if (!trimmed) return
    const id = `v${Date.now().toString(36)}`
    save.mutate({ tasks: { saved_views: [...views, { id, name: trimmed.slice(0, 60), query }] } })
    setNaming(false)
    setName('')
  }

  return (
    <div className="actions" style={{ marginBottom: 12 }} aria-label="Saved views">
      <span className="muted">Views:</span>
      <button className={query === '' ? 'primary' : ''} onClick={() => onApply('')}>All</button>
      {views.map((view) => (
        <span key={view.id} className="row" style={{ gap: 2 }}>
          <button className={view.query === query ? 'primary' : ''} onClick={() => onApply(view.query)}>{view.name}</button>
          <button className="link" aria-label={`Delete view ${view.name}`} onClick={() => save.mutate({ tasks: { saved_views: views.filter((v) => v.id !== view.id) } })}>✕</button>
        </span>
      ))}
      {naming ? (
        <form className="row" style={{ gap: 4 }} onSubmit={(e) => { e.preventDefault(); add() }}>
          <input aria-label="View name" placeholder="View name" maxLength={60} autoFocus value={name} onChange={(e) => setName(e.target.value)} style={{ width: '10rem' }} />
          <button type="submit" className="primary">Save</button>
          <button type="button" onClick={() => setNaming(false)}>Cancel</button>
        </form>
      ) : (
        <button onClick={() => setNaming(true)} disabled={query === '' || views.length >= MAX_VIEWS || query.length > 500}>Save current filters…</button>
      )}
      <ErrorText error={save.error} />
    </div>
  )
}
