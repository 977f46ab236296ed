import { hash, verify } from '@node-rs/bcrypt'

export const BCRYPT_COST = 12

/** bcrypt hash, computed off the main thread by the native library. */
export function hashPassword(password: string, cost = BCRYPT_COST): Promise<string> {
  return hash(password, { cost })
}

export function verifyPassword(password: string, passwordHash: string): Promise<boolean> {
  return verify(password, passwordHash)
}

// Sign-in with an unknown email compares against this hash, so it costs the same time as a
// wrong password and timing does not reveal which addresses have accounts.
let dummy: Promise<string> | null = null
export function dummyHash(): Promise<string> {
  return (dummy ??= hashPassword('not-a-real-password-shopfloor'))
}
