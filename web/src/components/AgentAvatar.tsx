import type { Agent } from '#src/client/types.ts'

const HUES = [220, 200, 265, 160, 20, 330, 45, 185]

/** A round initial whose colour comes from the agent's avatar seed, stable across pages. */
export function AgentAvatar({ agent }: { agent: Pick<Agent, 'name' | 'avatar_seed'> }) {
  const hue = HUES[Math.abs(agent.avatar_seed ?? 0) % HUES.length]
  return (
    <span className="avatar" style={{ background: `hsl(${hue} 55% 48%)` }} aria-hidden>
      {agent.name.trim().charAt(0).toUpperCase() || '?'}
    </span>
  )
}
