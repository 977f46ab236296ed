import type { Preferences, PreferencesPatch } from '#src/client/types.ts'

/** Merges a patch the way the server does: objects key by key, lists replaced, null removes. */
export function mergePreferences(current: Preferences, patch: PreferencesPatch): Preferences {
  const next: Record<string, unknown> = { ...current }
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key]
    else if (value && typeof value === 'object' && !Array.isArray(value)) {
      next[key] = mergePreferences((next[key] ?? {}) as Preferences, value as PreferencesPatch)
    } else next[key] = value
  }
  return next as Preferences
}
