// Sign-ins hash with bcrypt, which is pure CPU: passwords.ts lets at most one core short of all
// of them hash at once, so that a burst of sign-ins cannot starve every other request (the
// benchmark's workload 6 measured the event loop starving without it). The native library is
// wrapped here only to count the hashes running at the same time; it still does the hashing.
import os from 'node:os'
import { describe, expect, it, vi } from 'vitest'

const running = { now: 0, most: 0 }
vi.mock('@node-rs/bcrypt', async (original) => {
  const real = await original<typeof import('@node-rs/bcrypt')>()
  const counted =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      running.most = Math.max(running.most, ++running.now)
      try {
        return await fn(...args)
      } finally {
        running.now--
      }
    }
  return { ...real, hash: counted(real.hash), verify: counted(real.verify) }
})

// Test files share their worker's modules (vitest.config.ts): forget the ones loaded before
// this file, so that passwords.ts is loaded afresh, on the counted library.
vi.resetModules()
const { hashPassword, verifyPassword } = await import('../../src/server/auth/passwords.ts')

describe('password hashing under a burst', () => {
  it('runs at most one core short of all cores at once, and answers every caller correctly', async () => {
    const limit = Math.max(1, os.availableParallelism() - 1)
    const stored = await hashPassword('correct horse battery', 4)
    running.most = 0
    const burst = Array.from({ length: 12 }, (_, i) => verifyPassword(i % 3 === 0 ? 'wrong password' : 'correct horse battery', stored))
    const answers = await Promise.all(burst)
    expect(answers).toEqual(Array.from({ length: 12 }, (_, i) => i % 3 !== 0))
    expect(running.most).toBe(limit)
    expect(running.now).toBe(0)
  })
})
