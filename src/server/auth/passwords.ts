import crypto from 'node:crypto'
import { hash, verify } from '@node-rs/bcrypt'

export const BCRYPT_COST = 12

/**
 * What bcrypt actually hashes. bcrypt reads only the first 72 bytes, and passwords may be 128
 * characters (up to 512 bytes), so two long passwords sharing a prefix would match. The
 * password is first condensed with HMAC-SHA256 (44 base64 characters, no NUL bytes); the
 * fixed key keeps these values apart from plain SHA-256 digests leaked elsewhere.
 */
function bcryptInput(password: string): string {
  return crypto.createHmac('sha256', 'shopfloor-password-v1').update(password, 'utf8').digest('base64')
}

/** bcrypt hash, computed off the main thread by the native library. */
export function hashPassword(password: string, cost = BCRYPT_COST): Promise<string> {
  return hash(bcryptInput(password), { cost })
}

export function verifyPassword(password: string, passwordHash: string): Promise<boolean> {
  return verify(bcryptInput(password), passwordHash)
}

// Sign-in with an unknown email compares against this hash, so it costs the same time as a
// wrong password and timing does not reveal which addresses have accounts.
let dummy: Promise<string> | null = null
export function dummyHash(): Promise<string> {
  return (dummy ??= hashPassword('not-a-real-password-shopfloor'))
}
