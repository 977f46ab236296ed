// Usage of a CLI run: tokens per model request (cache reads and writes apart), the CLI's own cost
// when it reports one, else the list price of each request from @pydantic/genai-prices, a
// maintained price table. Each request is priced on its own: a long-context tier applies to a
// request whose own input passes the tier's threshold, never because the run's summed tokens did.
// A run on a subscription reports $0; it is priced at list price all the same, so that budgets
// still bite.
import { calcPrice } from '@pydantic/genai-prices'
import type { Usage } from '../adapter.ts'

export interface TokenCounts {
  /** Input tokens not read from or written to the cache. */
  input: number
  cacheRead: number
  cacheWrite: number
  output: number
}

const ZERO: TokenCounts = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 }

export class UsageMeter {
  /**
   * Counts by key, one key per model request where the CLI tells them apart (a message, a
   * response, a step): a key reported again replaces its counts. A CLI that gives only totals
   * records them under one key, priced as one request.
   */
  private readonly records = new Map<string, { model: string | null; counts: TokenCounts }>()
  private reportedUsd: number | null = null

  /** `providerId` helps the price lookup ('anthropic', 'openai', 'google'). */
  constructor(private readonly providerId?: string) {}

  record(key: string, model: string | null, counts: Partial<TokenCounts>): void {
    this.records.set(key, { model, counts: { ...ZERO, ...clean(counts) } })
  }

  /** Forgets every count (a CLI's final totals replace what its messages said). */
  reset(): void {
    this.records.clear()
  }

  /** The CLI's own figure for the whole run so far, in US dollars. */
  reportCost(usd: number): void {
    if (Number.isFinite(usd) && usd >= 0) this.reportedUsd = usd
  }

  private counts(): TokenCounts {
    const sum = { ...ZERO }
    for (const { counts } of this.records.values()) for (const k of Object.keys(sum) as (keyof TokenCounts)[]) sum[k] += counts[k]
    return sum
  }

  /** List price of the requests so far, each priced on its own, and the models no price is known for. */
  private listPrice(): { usd: number; unpriced: string[] } {
    let usd = 0
    const unpriced = new Set<string>()
    for (const { model, counts: c } of this.records.values()) {
      if (!c.input && !c.cacheRead && !c.cacheWrite && !c.output) continue
      const price = model ? priceOf(model, c, this.providerId) : null
      if (price === null) unpriced.add(model ?? '(unknown model)')
      else usd += price
    }
    return { usd, unpriced: [...unpriced] }
  }

  /** What the run cost: the CLI's figure when it gave one above zero, else the list price. */
  private cost(): { usd: number; how: string } {
    if (this.reportedUsd !== null && this.reportedUsd > 0) return { usd: this.reportedUsd, how: 'as reported by the CLI' }
    const { usd, unpriced } = this.listPrice()
    const how = this.reportedUsd === 0 ? 'at list price (the CLI reported $0: a subscription)' : 'at list price'
    return { usd, how: unpriced.length ? `${how}; no price known for ${unpriced.join(', ')}` : how }
  }

  /** Running totals as the report endpoint takes them: tokens in count the cache too. */
  totals(): Usage {
    const c = this.counts()
    return { tokens_in: c.input + c.cacheRead + c.cacheWrite, tokens_out: c.output, cost_cents: toCents(this.cost().usd) }
  }

  /** The transcript's usage line. */
  line(): string {
    const c = this.counts()
    const { usd, how } = this.cost()
    const n = (v: number) => v.toLocaleString('en-US')
    return `Usage: ${n(c.input + c.cacheRead + c.cacheWrite)} tokens in (${n(c.input)} uncached, ${n(c.cacheRead)} cache read, ` +
      `${n(c.cacheWrite)} cache write), ${n(c.output)} tokens out; cost $${usd.toFixed(4)} ${how}.`
  }
}

/** Whole cents, rounded up: a run that cost anything costs at least a cent. */
export function toCents(usd: number): number {
  return usd > 0 ? Math.ceil(Math.round(usd * 1e6) / 1e4) : 0
}

function clean(counts: Partial<TokenCounts>): Partial<TokenCounts> {
  const out: Partial<TokenCounts> = {}
  for (const [k, v] of Object.entries(counts)) if (typeof v === 'number' && Number.isFinite(v) && v > 0) out[k as keyof TokenCounts] = Math.round(v)
  return out
}

/** List price in US dollars, or null when the package knows no price for the model. */
export function priceOf(model: string, c: TokenCounts, providerId?: string): number | null {
  // OpenCode names models `provider/model`.
  const slash = model.indexOf('/')
  const [provider, name] = slash > 0 ? [model.slice(0, slash), model.slice(slash + 1)] : [providerId, model]
  const usage = {
    input_tokens: c.input + c.cacheRead + c.cacheWrite,
    cache_read_tokens: c.cacheRead,
    cache_write_tokens: c.cacheWrite,
    output_tokens: c.output,
  }
  try {
    const price = calcPrice(usage, name, provider ? { providerId: provider } : {}) ?? (provider ? calcPrice(usage, name) : null)
    return price ? Number(price.total_price) : null
  } catch {
    return null
  }
}

/** Requests a CLI showed as it ran, by key, for settle(). */
export type SeenRequests = Map<string, { model: string | null; counts: TokenCounts }>

/**
 * Records a CLI's final totals for `model` against the requests it showed mid-run: what they do
 * not account for (requests of the CLI's own, such as titles) is recorded as one more request
 * under `key`; when the requests showed more than the totals, the totals replace them.
 */
export function settle(meter: UsageMeter, seen: SeenRequests, key: string, model: string | null, total: TokenCounts): void {
  const rest = { ...total }
  for (const { counts } of seen.values()) for (const k of Object.keys(rest) as (keyof TokenCounts)[]) rest[k] -= counts[k]
  if (Object.values(rest).some((v) => v < 0)) {
    for (const [id, { model: m }] of seen) meter.record(id, m, {})
    meter.record(key, model, total)
  } else {
    meter.record(key, model, rest)
  }
}
