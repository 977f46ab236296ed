import { useSavePreferences } from '../../lib/preferences.tsx'
import { useMe } from '../../lib/queries.ts'

/** Stars an agent (preferences.favorites.agents); starred agents appear in the sidebar. */
export function FavoriteButton({ agentId, name }: { agentId: string; name: string }) {
  const me = useMe()
  const save = useSavePreferences()
  const favorites = me.data?.preferences.favorites?.agents ?? []
  const on = favorites.includes(agentId)
  return (
    <button
      className="link"
      aria-pressed={on}
      aria-label={on ? `Remove ${name} from favourites` : `Add ${name} to favourites`}
      title={on ? 'Favourite' : 'Add to favourites'}
      onClick={(e) => {
        e.stopPropagation()
        save.mutate({ favorites: { agents: on ? favorites.filter((id) => id !== agentId) : [...favorites, agentId].slice(-50) } })
      }}
    >
      {on ? '★' : '☆'}
    </button>
  )
}
