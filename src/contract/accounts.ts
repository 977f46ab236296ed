import { type Static, Type } from 'typebox'
import { OptionalBody, Timestamp, Uuid, OrNull } from './common.ts'

// Accounts: registration, sign-in, sessions, the caller's profile and preferences, password reset.
// Bounds come from the Limits part of the specification.

const Email = Type.String({ format: 'email', maxLength: 320 })
const Password = Type.String({ minLength: 8, maxLength: 128 })
/** 1 to 255 characters, not blank. */
const Name = Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' })
const AvatarUrl = Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 500, pattern: '^https://\\S+$' })
const ResetToken = Type.String({ minLength: 20, maxLength: 200 })

export const RegisterBody = Type.Object({
  email: Email,
  password: Password,
  name: Name,
  company: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 255 })),
})
export type RegisterBody = Static<typeof RegisterBody>

/** No bounds here: a sign-in with an over-long password is simply wrong, not malformed. */
export const LoginBody = Type.Object({ email: Type.String(), password: Type.String() })
export type LoginBody = Static<typeof LoginBody>

export const RefreshBody = Type.Object({ refresh_token: Type.String() })
export const IdpBody = Type.Object({ credential: Type.String({ minLength: 20, maxLength: 4096 }) })

/** Optional: no body ends every session of the caller. */
export const LogoutBody = OptionalBody(
  Type.Object({ refresh_token: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'] })) }),
)

export const ProfileBody = Type.Object({ name: Type.Optional(Name), avatar_url: Type.Optional(AvatarUrl) })
export type ProfileBody = Static<typeof ProfileBody>

export const ForgotBody = Type.Object({ email: Email })
export const ResetBody = Type.Object({ token: ResetToken, password: Password })
export const VerifyEmailBody = Type.Object({ token: ResetToken })

// --- Preferences: a small, closed document. Unknown fields are rejected at every level;
// every field accepts null, which removes the setting.

const COLORS = ['royal', 'sky', 'slate', 'ink'] as const
const OneOf = <const V extends (string | number)[]>(values: readonly [...V]) =>
  Type.Unsafe<V[number] | null>({ enum: [...values, null] })
const CardIds = Type.Unsafe<string[] | null>({
  type: ['array', 'null'],
  maxItems: 20,
  items: { type: 'string', pattern: '^[a-z0-9-]{1,40}$' },
})
const Uuids = Type.Unsafe<string[] | null>({ type: ['array', 'null'], maxItems: 50, items: { type: 'string', format: 'uuid' } })
const Group = <T>(properties: Record<string, unknown>) =>
  Type.Unsafe<T | null>({ type: ['object', 'null'], additionalProperties: false, properties })

const SavedView = Type.Object(
  {
    id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,40}$' }),
    name: Type.String({ minLength: 1, maxLength: 60 }),
    query: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
)
export type SavedView = Static<typeof SavedView>

export type Color = (typeof COLORS)[number]

/** The stored preferences as the API answers them: removed settings are absent. */
export interface Preferences {
  accent?: Color
  avatar_color?: Color
  currency?: string
  dashboard?: { hidden?: string[]; order?: string[]; range_days?: 7 | 14 | 30 }
  date_style?: 'short' | 'medium' | 'long'
  density?: 'comfortable' | 'compact'
  favorites?: { agents?: string[]; projects?: string[] }
  locale?: string
  sidebar_collapsed?: boolean
  /** Saved views as clients write them (with their query; the schema lets `query` be left out). */
  tasks?: { saved_views?: (SavedView & { query: string })[]; view?: 'list' | 'board' }
  theme?: 'light' | 'dark' | 'system'
  timezone?: string
  version?: number
}

/** A preferences update: `null` removes a setting, objects merge key by key. */
export type PreferencesPatch = {
  [K in keyof Preferences]?: (Preferences[K] extends object ? Preferences[K] | { [F in keyof Preferences[K]]?: Preferences[K][F] | null } : Preferences[K]) | null
}

export const PreferencesBody = Type.Unsafe<PreferencesPatch>({
  type: 'object',
  additionalProperties: false,
  properties: {
    accent: OneOf(COLORS),
    avatar_color: OneOf(COLORS),
    currency: { type: ['string', 'null'], pattern: '^[A-Z]{3}$' },
    dashboard: Group({ hidden: CardIds, order: CardIds, range_days: OneOf([7, 14, 30]) }),
    date_style: OneOf(['short', 'medium', 'long']),
    density: OneOf(['comfortable', 'compact']),
    favorites: Group({ agents: Uuids, projects: Uuids }),
    locale: { type: ['string', 'null'], maxLength: 35, pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$' },
    sidebar_collapsed: { type: ['boolean', 'null'] },
    tasks: Group({ saved_views: { type: ['array', 'null'], maxItems: 20, items: SavedView }, view: OneOf(['list', 'board']) }),
    theme: OneOf(['light', 'dark', 'system']),
    timezone: { type: ['string', 'null'], maxLength: 64 },
    version: { type: ['integer', 'null'] },
  },
})

/** Stored preferences in an answer: whatever was kept (the body schema decides what may be kept). */
export const PreferencesRecord = Type.Unsafe<Preferences>({ type: 'object', additionalProperties: true })

export { mergePreferences } from './merge-preferences.ts'

// --- Answers

export const User = Type.Object({
  id: Uuid,
  email: Type.String(),
  name: Type.String(),
  created_at: Timestamp,
  avatar_url: OrNull(Type.String()),
  preferences: PreferencesRecord,
})
export type User = Static<typeof User>

export const Session = Type.Object({ access_token: Type.String(), refresh_token: Type.String(), user: User })
export type Session = Static<typeof Session>

export const SessionTokens = Type.Object({ access_token: Type.String(), refresh_token: Type.String() })
export type SessionTokens = Static<typeof SessionTokens>

/** A refresh answers a new access token only: the refresh token is not rotated. */
export const AccessToken = Type.Object({ access_token: Type.String() })

export const Message = Type.Object({ message: Type.String() })
export const AuthConfig = Type.Object({
  idp_client_id: OrNull(Type.String()),
  /** False on a fresh instance, before anyone signed up: the web app opens on sign-up then. */
  has_accounts: Type.Boolean(),
})
