// The provider credentials this runner rests until their limit's reset (API-DECISIONS.md
// "Provider limits, plans and fallback"): after one run met a provider's quota or rate limit, the
// runner claims no run that would use the same credential until the reset, rather than starting
// one run per agent only to see each refused. The credential is the runner's own for that
// provider (its environment's key or its shared CLI login), so the adapters of that provider are
// left out of its claims; an OpenCode agent may use any provider, so OpenCode rests with the
// provider one of its runs met. Claims and heartbeats carry the list to the server, which shows
// it in GET /runners.
//
// The rests are kept in a file of the runner's own under its cache folder (which agents never
// see), so a runner restarted during a cool-down does not spend its first claims finding the
// quota exhausted again; `shopfloor runner doctor` reads the same files.
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Cooldown, ProviderLimit } from '../client/index.ts'
import { DIALECTS } from './adapters/index.ts'

/** A limit without a reset (a rate limit or overload that named none) is rested this long. */
export const DEFAULT_COOLDOWN_SECONDS = 60

/** One rest as the file keeps it: what GET /runners shows, the adapters that met it, and why in words. */
export interface KeptCooldown extends Cooldown {
  adapters: string[]
  reason: string
}

interface Rest {
  until: number
  adapters: Set<string>
  reason: string
}

/** The folder of the runners' cool-down files under a runner's cache folder. */
export function cooldownsDir(cacheDir: string): string {
  return join(cacheDir, 'cooldowns')
}

/** One file per runner id: two runners of one machine may use different credentials. */
function fileOf(cacheDir: string, runnerId: string): string {
  return join(cooldownsDir(cacheDir), `${encodeURIComponent(runnerId)}.json`)
}

export class Cooldowns {
  /** provider -> until (ms), the adapters that met it and why. */
  private readonly rests = new Map<string, Rest>()
  private readonly file: string | null
  private readonly dir: string | null

  /** `keep`: where this runner's rests are kept across restarts (none: in memory only). */
  constructor(private readonly now: () => number = Date.now, keep: { cacheDir: string; runnerId: string } | null = null) {
    this.dir = keep ? cooldownsDir(keep.cacheDir) : null
    this.file = keep ? fileOf(keep.cacheDir, keep.runnerId) : null
    if (this.file) {
      for (const kept of readKept(this.file)) {
        const until = Date.parse(kept.until)
        if (until > this.now()) this.rests.set(kept.provider, { until, adapters: new Set(kept.adapters), reason: kept.reason })
      }
    }
  }

  add(limit: ProviderLimit, adapter: string, reason: string): void {
    const until = limit.reset_at ? Date.parse(limit.reset_at) : this.now() + DEFAULT_COOLDOWN_SECONDS * 1000
    const rest = this.rests.get(limit.provider)
    if (rest && rest.until > this.now()) {
      if (until > rest.until) {
        rest.until = until
        rest.reason = reason
      }
      rest.adapters.add(adapter)
    } else {
      this.rests.set(limit.provider, { until, adapters: new Set([adapter]), reason })
    }
    this.save()
  }

  /** The cool-downs in force, for claims and heartbeats. */
  list(): Cooldown[] {
    return this.kept().map(({ provider, until }) => ({ provider, until }))
  }

  /** The cool-downs in force with the adapters that met them and why. */
  kept(): KeptCooldown[] {
    const now = this.now()
    const list: KeptCooldown[] = []
    for (const [provider, rest] of this.rests) {
      if (rest.until <= now) this.rests.delete(provider)
      else list.push({ provider, until: new Date(rest.until).toISOString(), adapters: [...rest.adapters].sort(), reason: rest.reason })
    }
    return list.sort((a, b) => a.provider.localeCompare(b.provider))
  }

  /** The adapters a claim may name now: `claimable` less those whose provider credential rests. */
  available(claimable: string[]): string[] {
    const resting = new Set<string>()
    this.list() // forgets the ones over
    for (const [provider, rest] of this.rests) {
      for (const adapter of rest.adapters) resting.add(adapter)
      for (const [name, dialect] of Object.entries(DIALECTS)) if (dialect.providerId === provider) resting.add(name)
    }
    return claimable.filter((name) => !resting.has(name))
  }

  /** Written whole to a new file then renamed, so a runner stopped mid-write leaves the old list, not half a file. */
  private save(): void {
    if (!this.file || !this.dir) return
    mkdirSync(this.dir, { recursive: true, mode: 0o700 })
    const temp = `${this.file}.${process.pid}.tmp`
    writeFileSync(temp, `${JSON.stringify({ cooldowns: this.kept() }, null, 2)}\n`, { mode: 0o600 })
    renameSync(temp, this.file)
  }
}

/** A runner's kept rests; a missing or unreadable file keeps none (the next limit met writes it again). */
function readKept(file: string): KeptCooldown[] {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { cooldowns?: unknown }
    if (!Array.isArray(parsed.cooldowns)) return []
    return parsed.cooldowns.filter((c): c is KeptCooldown =>
      typeof c?.provider === 'string' && typeof c.until === 'string' && !Number.isNaN(Date.parse(c.until))
      && Array.isArray(c.adapters) && c.adapters.every((a: unknown) => typeof a === 'string') && typeof c.reason === 'string')
  } catch {
    return []
  }
}

/** Every runner's rests still in force under a cache folder, by runner id (for `shopfloor runner doctor`). */
export function keptCooldowns(cacheDir: string, now = Date.now()): { runnerId: string; cooldowns: KeptCooldown[] }[] {
  let names: string[]
  try {
    names = readdirSync(cooldownsDir(cacheDir)).filter((n) => n.endsWith('.json')).sort()
  } catch {
    return []
  }
  return names
    .map((name) => ({
      runnerId: decodeURIComponent(name.slice(0, -'.json'.length)),
      cooldowns: readKept(join(cooldownsDir(cacheDir), name)).filter((c) => Date.parse(c.until) > now),
    }))
    .filter((r) => r.cooldowns.length > 0)
}
