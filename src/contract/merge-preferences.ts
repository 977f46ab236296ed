// The preferences merge rule, shared by the server and the web app. A file of its own, without
// schemas, so that the web app's bundle takes the rule and not the schema library.

type Doc = Record<string, unknown>
const isObject = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * Applies a partial update, on the server and in the web app alike: objects merge key by key,
 * lists and scalars replace, null removes the setting. A group left without settings is
 * removed too, so removed settings are absent.
 */
export function mergePreferences<T extends object>(current: T, patch: object): T {
  const merged: Doc = { ...(current as Doc) }
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete merged[key]
    } else if (isObject(value)) {
      const inner = mergePreferences(isObject(merged[key]) ? (merged[key] as Doc) : {}, value)
      if (Object.keys(inner).length) merged[key] = inner
      else delete merged[key]
    } else {
      merged[key] = value
    }
  }
  return merged as T
}
