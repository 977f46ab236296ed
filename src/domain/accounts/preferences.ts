import type { Db } from '../../server/db/db.ts'

// User preferences: a small, closed document. Unknown fields are rejected at every level;
// every field accepts null, which removes the setting.

const COLORS = ['royal', 'sky', 'slate', 'ink']

const oneOf = (values: unknown[]) => ({ enum: [...values, null] })
const cardIds = {
  type: ['array', 'null'],
  maxItems: 20,
  items: { type: 'string', pattern: '^[a-z0-9-]{1,40}$' },
}
const uuids = { type: ['array', 'null'], maxItems: 50, items: { type: 'string', format: 'uuid' } }
const group = (properties: Record<string, unknown>) => ({ type: ['object', 'null'], additionalProperties: false, properties })

const savedView = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name'],
  properties: {
    id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,40}$' },
    name: { type: 'string', minLength: 1, maxLength: 60 },
    query: { type: 'string', maxLength: 500 },
  },
}

export const preferencesBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    accent: oneOf(COLORS),
    avatar_color: oneOf(COLORS),
    currency: { type: ['string', 'null'], pattern: '^[A-Z]{3}$' },
    dashboard: group({ hidden: cardIds, order: cardIds, range_days: oneOf([7, 14, 30]) }),
    date_style: oneOf(['short', 'medium', 'long']),
    density: oneOf(['comfortable', 'compact']),
    favorites: group({ agents: uuids, projects: uuids }),
    locale: { type: ['string', 'null'], maxLength: 35, pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$' },
    sidebar_collapsed: { type: ['boolean', 'null'] },
    tasks: group({ saved_views: { type: ['array', 'null'], maxItems: 20, items: savedView }, view: oneOf(['list', 'board']) }),
    theme: oneOf(['light', 'dark', 'system']),
    timezone: { type: ['string', 'null'], maxLength: 64 },
    version: { type: ['integer', 'null'] },
  },
} as const

type Doc = Record<string, unknown>

const isObject = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * Applies a partial update: objects merge key by key, lists and scalars replace, null removes
 * the setting. A group left without settings is removed too, so removed settings are absent.
 */
export function mergePreferences(current: Doc, patch: Doc): Doc {
  const merged: Doc = { ...current }
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
  return merged
}

/** Merges the patch into the stored preferences under the user's row lock; returns the result. */
export async function updatePreferences(db: Db, userId: string, patch: Doc): Promise<Doc> {
  return db.transaction(async (tx) => {
    const row = await tx.one<{ preferences: Doc }>('SELECT preferences FROM users WHERE id = $1 FOR UPDATE', [userId])
    const merged = mergePreferences(row?.preferences ?? {}, patch)
    await tx.query('UPDATE users SET preferences = $2::jsonb, updated_at = now() WHERE id = $1', [userId, JSON.stringify(merged)])
    return merged
  })
}
