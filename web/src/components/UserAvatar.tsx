import type { User } from '#src/client/types.ts'

const COLORS = { royal: '#3554d1', sky: '#0284c7', slate: '#52627a', ink: '#1b1f24' } as const

/** The person's picture when they gave one, else their initial on their chosen colour. */
export function UserAvatar({ user }: { user: Pick<User, 'name' | 'avatar_url' | 'preferences'> }) {
  if (user.avatar_url) return <img className="avatar" src={user.avatar_url} alt="" width={28} height={28} />
  return (
    <span className="avatar" style={{ background: COLORS[user.preferences.avatar_color ?? 'royal'] }} aria-hidden>
      {user.name.trim().charAt(0).toUpperCase() || '?'}
    </span>
  )
}
