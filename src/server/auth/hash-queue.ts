import { AppError } from '../errors.ts'

/** Hashes one client address may have running at once. */
export const HASHES_AT_ONCE = 2
/** Requests of one client address that may wait for a hash; beyond that 429. */
export const HASHES_WAITING = 20

/**
 * Password hashing (sign-in, sign-up, reset), queued per client address: bcrypt at cost 12 is a
 * quarter of a second of a core, and 24 sign-ins from one address held everybody else's sign-up
 * for 5.8 s. One address gets HASHES_AT_ONCE at a time and HASHES_WAITING in line; beyond that
 * 429 RATE_LIMITED, and other addresses are served meanwhile.
 */
export class HashQueue {
  private readonly lines = new Map<string, { running: number; waiting: (() => void)[] }>()

  constructor(private readonly atOnce = HASHES_AT_ONCE, private readonly waiting = HASHES_WAITING) {}

  /** Runs `work` in the address's turn. */
  async run<T>(address: string, work: () => Promise<T>): Promise<T> {
    let line = this.lines.get(address)
    if (!line) this.lines.set(address, (line = { running: 0, waiting: [] }))
    if (line.running >= this.atOnce) {
      if (line.waiting.length >= this.waiting) {
        throw new AppError('RATE_LIMITED', `Too many sign-in, sign-up and password requests from this address at once; try again shortly`)
      }
      await new Promise<void>((resolve) => line!.waiting.push(resolve))
    } else line.running++
    try {
      return await work()
    } finally {
      // The turn passes to the next in line, or is given back.
      const next = line.waiting.shift()
      if (next) next()
      else if (--line.running === 0) this.lines.delete(address)
    }
  }
}
