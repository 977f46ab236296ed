// Request schemas shared by the account routes (bounds from the Limits part of the spec).

export const emailSchema = { type: 'string', format: 'email', maxLength: 320 } as const
export const passwordSchema = { type: 'string', minLength: 8, maxLength: 128 } as const
/** 1 to 255 characters, not blank. */
export const nameSchema = { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' } as const
export const avatarUrlSchema = { type: ['string', 'null'], maxLength: 500, pattern: '^https://\\S+$' } as const
export const resetTokenSchema = { type: 'string', minLength: 20, maxLength: 200 } as const

export const registerBody = {
  type: 'object',
  required: ['email', 'password', 'name'],
  properties: {
    email: emailSchema,
    password: passwordSchema,
    name: nameSchema,
    company: { type: ['string', 'null'], maxLength: 255 },
  },
} as const

export const loginBody = {
  type: 'object',
  required: ['email', 'password'],
  // No bounds here: a sign-in with an over-long password is simply wrong, not malformed.
  properties: { email: { type: 'string' }, password: { type: 'string' } },
} as const

export const refreshBody = {
  type: 'object',
  required: ['refresh_token'],
  properties: { refresh_token: { type: 'string' } },
} as const

export const logoutBody = {
  type: ['object', 'null'],
  properties: { refresh_token: { type: ['string', 'null'] } },
} as const

export const profileBody = {
  type: 'object',
  properties: { name: nameSchema, avatar_url: avatarUrlSchema },
} as const

export const forgotBody = {
  type: 'object',
  required: ['email'],
  properties: { email: emailSchema },
} as const

export const resetBody = {
  type: 'object',
  required: ['token', 'password'],
  properties: { token: resetTokenSchema, password: passwordSchema },
} as const

export const idpBody = {
  type: 'object',
  required: ['credential'],
  properties: { credential: { type: 'string', minLength: 20, maxLength: 4096 } },
} as const
