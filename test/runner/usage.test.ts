// Usage and cost of agent CLI runs, in-process: list prices from @pydantic/genai-prices (models
// named `provider/model` too), the CLI's own figure, a $0 subscription priced at list price, a
// model without a price, and which kind of failure an error message is.
import { calcPrice } from '@pydantic/genai-prices'
import { describe, expect, it } from 'vitest'
import { classifyFailure } from '../../src/runner/adapters/cli/errors.ts'
import { UsageMeter } from '../../src/runner/adapters/cli/usage.ts'

const tokens = { input: 10_000, cacheRead: 50_000, cacheWrite: 5000, output: 2000 }
const listUsd = Number(calcPrice({ input_tokens: 65_000, cache_read_tokens: 50_000, cache_write_tokens: 5000, output_tokens: 2000 }, 'claude-sonnet-4-5', { providerId: 'anthropic' })!.total_price)

describe('UsageMeter', () => {
  it('prices a provider/model name at list price, counting cache tokens among tokens in', () => {
    const meter = new UsageMeter()
    meter.record('step-1', 'anthropic/claude-sonnet-4-5', tokens)
    expect(meter.totals()).toEqual({ tokens_in: 65_000, tokens_out: 2000, cost_cents: Math.ceil(listUsd * 100) })
    expect(meter.line()).toBe(`Usage: 65,000 tokens in (10,000 uncached, 50,000 cache read, 5,000 cache write), 2,000 tokens out; cost $${listUsd.toFixed(4)} at list price.`)
  })

  it("uses the CLI's own figure above zero, and the list price when it says $0", () => {
    const own = new UsageMeter('anthropic')
    own.record('m', 'claude-sonnet-4-5', tokens)
    own.reportCost(0.5)
    expect(own.totals().cost_cents).toBe(50)
    const subscription = new UsageMeter('anthropic')
    subscription.record('m', 'claude-sonnet-4-5', tokens)
    subscription.reportCost(0)
    expect(subscription.totals().cost_cents).toBe(Math.ceil(listUsd * 100))
    expect(subscription.line()).toContain('at list price (the CLI reported $0: a subscription)')
  })

  it('counts a key reported again once, and names a model without a price', () => {
    const meter = new UsageMeter('openai')
    meter.record('msg-1', 'no-such-model-xyz', { input: 100, output: 10 })
    meter.record('msg-1', 'no-such-model-xyz', { input: 100, output: 10 })
    expect(meter.totals()).toEqual({ tokens_in: 100, tokens_out: 10, cost_cents: 0 })
    expect(meter.line()).toContain('no price known for no-such-model-xyz')
  })
})

describe('classifyFailure', () => {
  it('tells rate limits, overload and credentials from other errors', () => {
    expect(classifyFailure('API Error: 429 rate_limit_error')).toBe('rate_limit')
    expect(classifyFailure('Claude AI usage limit reached|1760000000')).toBe('rate_limit')
    expect(classifyFailure('(429 RESOURCE_EXHAUSTED)')).toBe('rate_limit')
    expect(classifyFailure('API Error: 529 overloaded_error')).toBe('overloaded')
    expect(classifyFailure('503 UNAVAILABLE')).toBe('overloaded')
    expect(classifyFailure('Invalid API key · Please run /login')).toBe('credentials')
    expect(classifyFailure('unexpected status 401 Unauthorized')).toBe('credentials')
    expect(classifyFailure('ENOSPC: no space left on device')).toBe('error')
  })
})
