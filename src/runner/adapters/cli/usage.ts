// Usage of a CLI run: tokens per model (cache reads and writes apart), the CLI's own cost when
// it reports one, else the list price of each model from @pydantic/genai-prices, a maintained
// price table. A run on a subscription reports $0; it is priced at list price all the same, so
// that budgets still bite.
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
  /** Counts by key (a message, a turn, a step): a key reported again replaces its counts. */
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

  private byModel(): Map<string | null, TokenCounts> {
    const models = new Map<string | null, TokenCounts>()
    for (const { model, counts } of this.records.values()) {
      const sum = models.get(model) ?? { ...ZERO }
      for (const k of Object.keys(sum) as (keyof TokenCounts)[]) sum[k] += counts[k]
      models.set(model, sum)
    }
    return models
  }

  private counts(): TokenCounts {
    const sum = { ...ZERO }
    for (const counts of this.byModel().values()) for (const k of Object.keys(sum) as (keyof TokenCounts)[]) sum[k] += counts[k]
    return sum
  }

  /** List price of the tokens so far, and the models no price is known for. */
  private listPrice(): { usd: number; unpriced: string[] } {
    let usd = 0
    const unpriced: string[] = []
    for (const [model, c] of this.byModel()) {
      if (!c.input && !c.cacheRead && !c.cacheWrite && !c.output) continue
      const price = model ? priceOf(model, c, this.providerId) : null
      if (price === null) unpriced.push(model ?? '(unknown model)')
      else usd += price
    }
    return { usd, unpriced }
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
