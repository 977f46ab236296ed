// The event types of the live stream (SPEC.md "Events"), which webhooks deliver too, and the
// patterns a subscription may name: `*`, `<entity>.*` or one exact type.

export const EVENT_TYPES = [
  'company.updated',
  'agent.created', 'agent.updated',
  'task.created', 'task.updated', 'task.deleted', 'task.commented',
  'goal.created', 'goal.updated', 'goal.deleted',
  'project.created', 'project.updated',
  'routine.created', 'routine.updated', 'routine.deleted',
  'run.created', 'run.updated',
  'approval.created', 'approval.updated',
  'document.created', 'document.updated', 'document.deleted',
  'skill.created', 'skill.updated', 'skill.deleted',
] as const

const ENTITIES = new Set(EVENT_TYPES.map((t) => t.split('.')[0]))
const TYPES = new Set<string>(EVENT_TYPES)

/** Null when the pattern is valid, else why not. */
export function patternProblem(pattern: string): string | null {
  if (pattern === '*' || TYPES.has(pattern)) return null
  const [entity, verb, ...rest] = pattern.split('.')
  if (verb === '*' && rest.length === 0 && ENTITIES.has(entity)) return null
  return `Unknown event pattern "${pattern}": use "*", "<entity>.*" or one of ${EVENT_TYPES.join(', ')}`
}

export function matches(patterns: readonly string[], type: string): boolean {
  for (const p of patterns) {
    if (p === '*' || p === type) return true
    if (p.endsWith('.*') && type.startsWith(p.slice(0, -1))) return true
  }
  return false
}
