import crypto from 'node:crypto'
import os from 'node:os'
import { hash, verify } from '@node-rs/bcrypt'

/**
 * bcrypt is pure CPU. Left alone, a burst of sign-ins fills every thread of the pool and
 * starves the event loop, so every other request slows down with it (bench/ workload 6).
 * At most this many hashes run at once, one core short of all of them; the rest wait in turn.
 */
const MAX_PARALLEL_HASHES = Math.max(1, os.availableParallelism() - 1)
let hashing = 0
const waiting: (() => void)[] = []

async function limited<T>(work: () => Promise<T>): Promise<T> {
  if (hashing >= MAX_PARALLEL_HASHES) await new Promise<void>((resolve) => waiting.push(resolve))
  else hashing++
  try {
    return await work()
  } finally {
    // Hand the slot straight to the next in line, or give it back.
    const next = waiting.shift()
    if (next) next()
    else hashing--
  }
}

/**
 * What bcrypt actually hashes. bcrypt reads only the first 72 bytes, and passwords may be 128
 * characters (up to 512 bytes), so two long passwords sharing a prefix would match. The
 * password is first condensed with HMAC-SHA256 (44 base64 characters, no NUL bytes); the
 * fixed key keeps these values apart from plain SHA-256 digests leaked elsewhere.
 */
function bcryptInput(password: string): string {
  return crypto.createHmac('sha256', 'shopfloor-password-v1').update(password, 'utf8').digest('base64')
}

/** bcrypt hash at `cost` (Config.passwordCost), computed off the main thread by the native library. */
export function hashPassword(password: string, cost: number): Promise<string> {
  return limited(() => hash(bcryptInput(password), { cost }))
}

export function verifyPassword(password: string, passwordHash: string): Promise<boolean> {
  return limited(() => verify(bcryptInput(password), passwordHash))
}

// Sign-in with an unknown email compares against this hash, made at the cost of real ones, so it
// costs the same time as a wrong password and timing does not reveal which addresses have accounts.
const dummies = new Map<number, Promise<string>>()
export function dummyHash(cost: number): Promise<string> {
  let dummy = dummies.get(cost)
  if (!dummy) dummies.set(cost, (dummy = hashPassword('not-a-real-password-shopfloor', cost)))
  return dummy
}
