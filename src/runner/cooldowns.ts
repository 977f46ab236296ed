// The provider credentials this runner rests until their limit's reset (API-DECISIONS.md
// "Provider limits, plans and fallback"): after one run met a provider's quota or rate limit, the
// runner claims no run that would use the same credential until the reset, rather than starting
// one run per agent only to see each refused. The credential is the runner's own for that
// provider (its environment's key or its shared CLI login), so the adapters of that provider are
// left out of its claims; an OpenCode agent may use any provider, so OpenCode rests with the
// provider one of its runs met. Claims and heartbeats carry the list to the server, which shows
// it in GET /runners.
import type { Cooldown, ProviderLimit } from '../client/index.ts'
import { DIALECTS } from './adapters/index.ts'

/** A limit without a reset (a rate limit or overload that named none) is rested this long. */
export const DEFAULT_COOLDOWN_SECONDS = 60

export class Cooldowns {
  /** provider -> until (ms) and the adapters that met it. */
  private readonly rests = new Map<string, { until: number; adapters: Set<string> }>()

  constructor(private readonly now: () => number = Date.now) {}

  add(limit: ProviderLimit, adapter: string): void {
    const until = limit.reset_at ? Date.parse(limit.reset_at) : this.now() + DEFAULT_COOLDOWN_SECONDS * 1000
    const rest = this.rests.get(limit.provider)
    if (rest && rest.until > this.now()) {
      rest.until = Math.max(rest.until, until)
      rest.adapters.add(adapter)
    } else {
      this.rests.set(limit.provider, { until, adapters: new Set([adapter]) })
    }
  }

  /** The cool-downs in force, for claims and heartbeats. */
  list(): Cooldown[] {
    const now = this.now()
    const list: Cooldown[] = []
    for (const [provider, rest] of this.rests) {
      if (rest.until <= now) this.rests.delete(provider)
      else list.push({ provider, until: new Date(rest.until).toISOString() })
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
}
