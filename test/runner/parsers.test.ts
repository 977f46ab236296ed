// The CLI adapters' parsers, in-process, fed with output recorded from the real CLIs
// (test/runner/recorded/, printed by Claude Code 2.1.197, Codex 0.171.0, Gemini CLI 0.61.0 and
// OpenCode 1.18.33 against the scripted model server: two requests of 10,000 tokens in, 2,000 of
// them cached, and 500 out, a tool call then "All done."), and the meter pricing each request on
// its own.
import { calcPrice } from '@pydantic/genai-prices'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Usage } from '../../src/runner/adapters/adapter.ts'
import { claudeCode } from '../../src/runner/adapters/claude-code.ts'
import type { Dialect, DialectSink } from '../../src/runner/adapters/cli/run.ts'
import { failureMessage } from '../../src/runner/adapters/cli/errors.ts'
import { toCents, UsageMeter } from '../../src/runner/adapters/cli/usage.ts'
import { codex } from '../../src/runner/adapters/codex.ts'
import { gemini } from '../../src/runner/adapters/gemini.ts'
import { opencode } from '../../src/runner/adapters/opencode.ts'
import { tempDir } from '../server-process.ts'

const RECORDED = path.join(import.meta.dirname, 'recorded')

/** Feeds a recording to a dialect's parser; answers what the run would have seen. */
function replay(dialect: Dialect, file: string, config: Record<string, unknown> = {}, upTo?: (event: any) => boolean) {
  const meter = new UsageMeter(dialect.providerId)
  const updates: Usage[] = []
  const transcript: { role: string; text: string }[] = []
  const failures: string[] = []
  let ended = false
  const sink: DialectSink = {
    transcript: (role, text) => transcript.push({ role, text }),
    session: () => {},
    meter,
    usageChanged: () => updates.push(meter.totals()),
    fail: (detail) => failures.push(detail),
    ended: () => (ended = true),
  }
  const home = tempDir('shopfloor-parser-home-')
  const parser = dialect.parser({ config, home, resumeSession: null, env: {} } as any, sink)
  for (const line of fs.readFileSync(path.join(RECORDED, file), 'utf8').split('\n').filter(Boolean)) {
    const event = JSON.parse(line)
    if (upTo?.(event)) break
    parser.event(event)
  }
  const outcome = parser.outcome()
  parser.close?.()
  return { outcome, totals: meter.totals(), line: meter.line(), updates, transcript, failures, ended }
}

const listCents = (model: string, providerId: string, requests: { input: number; cached: number; output: number }[]) =>
  toCents(requests.reduce((usd, r) => usd + Number(calcPrice({ input_tokens: r.input, cache_read_tokens: r.cached, output_tokens: r.output }, model, { providerId })!.total_price), 0))
const TWO = [{ input: 10_000, cached: 2_000, output: 500 }, { input: 10_000, cached: 2_000, output: 500 }]

describe('Claude Code 2.1.197', () => {
  it('reads the reply, the tool line, the usage and its own cost', () => {
    const r = replay(claudeCode, 'claude-code-2.1.197.jsonl')
    expect(r.outcome).toEqual({ finished: true, reply: 'All done.', error: null })
    expect(r.totals).toEqual({ tokens_in: 20_000, tokens_out: 1_000, cost_cents: 7 }) // its own $0.0642
    expect(r.transcript.filter((e) => e.role === 'tool').map((e) => e.text)).toEqual(['Bash: echo hi\nhi\n'])
    expect(r.ended).toBe(true)
  })

  it('counts output tokens as they stream: before its result, each request has its 500 out, not the 1 of the assistant event', () => {
    const r = replay(claudeCode, 'claude-code-2.1.197.jsonl', {}, (e) => e.type === 'result')
    expect(r.totals.tokens_out).toBe(1_000)
    expect(r.totals.tokens_in).toBe(20_000)
    expect(r.totals.cost_cents).toBe(listCents('claude-sonnet-4-5', 'anthropic', TWO))
    // The first request's output was known before the second started.
    expect(r.updates.some((u) => u.tokens_out === 500 && u.tokens_in === 10_000)).toBe(true)
  })

  it('an overloaded API (529) after its retries is an overloaded failure; a refused key ends the run at its first retry', () => {
    const overloaded = replay(claudeCode, 'claude-code-2.1.197-529.jsonl')
    expect(failureMessage('Claude Code', overloaded.outcome.error!, claudeCode.credentials)).toMatch(/^Claude Code: overloaded: API Error: 529 Overloaded/)
    const refused = replay(claudeCode, 'claude-code-2.1.197-401.jsonl')
    expect(refused.failures[0]).toBe('the API refused the credentials (401 authentication_failed)') // the first ends the run
    expect(failureMessage('Claude Code', refused.failures[0], claudeCode.credentials)).toMatch(/^Claude Code: credentials refused or missing \(ANTHROPIC_API_KEY/)
  })
})

describe('Codex 0.171.0', () => {
  it('reads the reply, the command line and the turn usage, priced per request', () => {
    const r = replay(codex, 'codex-0.171.0.jsonl', { model: 'gpt-5-codex' })
    expect(r.outcome).toEqual({ finished: true, reply: 'All done.', error: null })
    expect(r.totals).toEqual({ tokens_in: 20_000, tokens_out: 1_000, cost_cents: listCents('gpt-5-codex', 'openai', TWO) })
    expect(r.transcript.filter((e) => e.role === 'tool').map((e) => e.text)).toEqual(["Shell: /bin/bash -lc 'echo hi'\nhi\n"])
  })

  it('a refused key (its "Incorrect API key provided") and an overloaded API ("high demand", 529) are told apart', () => {
    expect(failureMessage('Codex', replay(codex, 'codex-0.171.0-401.jsonl').outcome.error!, codex.credentials)).toMatch(/^Codex: credentials refused or missing/)
    expect(failureMessage('Codex', replay(codex, 'codex-0.171.0-529.jsonl').outcome.error!, codex.credentials)).toMatch(/^Codex: overloaded/)
    expect(failureMessage('Codex', 'We’re currently experiencing high demand, which may cause temporary errors.', [])).toMatch(/^Codex: overloaded/)
  })
})

describe('Gemini CLI 0.61.0', () => {
  it('reads the reply, the tool line and the final stats', () => {
    const r = replay(gemini, 'gemini-cli-0.61.0.jsonl', { model: 'gemini-2.5-pro' })
    expect(r.outcome).toEqual({ finished: true, reply: 'All done.', error: null })
    expect(r.totals).toEqual({ tokens_in: 20_000, tokens_out: 1_000, cost_cents: listCents('gemini-2.5-pro', 'google', TWO) })
    expect(r.transcript.filter((e) => e.role === 'tool').map((e) => e.text)).toEqual(['run_shell_command: echo hi\nhi\n'])
  })

  it('a refused key is a credentials failure', () => {
    expect(failureMessage('Gemini CLI', replay(gemini, 'gemini-cli-0.61.0-401.jsonl').outcome.error!, gemini.credentials)).toMatch(/^Gemini CLI: credentials refused or missing/)
  })
})

describe('OpenCode 1.18.33', () => {
  it('adds up its steps and its own cost', () => {
    const r = replay(opencode, 'opencode-1.18.33.jsonl', { model: 'mock/gpt-4.1' })
    expect(r.outcome).toEqual({ finished: true, reply: 'All done.', error: null })
    expect(r.totals).toEqual({ tokens_in: 20_000, tokens_out: 1_000, cost_cents: 5 }) // its own 2 x $0.021
  })

  it('keeps the status code of an API error: 401 is a refused key, 529 an overload', () => {
    const refused = replay(opencode, 'opencode-1.18.33-401.jsonl').outcome.error!
    expect(refused).toMatch(/^APIError \(401\): Incorrect API key provided/)
    expect(failureMessage('OpenCode', refused, opencode.credentials)).toMatch(/^OpenCode: credentials refused or missing/)
    expect(failureMessage('OpenCode', replay(opencode, 'opencode-1.18.33-529.jsonl').outcome.error!, opencode.credentials)).toMatch(/^OpenCode: overloaded/)
  })
})

describe('prices per request', () => {
  it('a long-context tier applies to one request whose own input passes it, never to the sum of the run', () => {
    const meter = new UsageMeter('google')
    for (let i = 0; i < 7; i++) meter.record(`request-${i}`, 'gemini-2.5-pro', { input: 40_000, output: 4_000 })
    const perRequest = listCents('gemini-2.5-pro', 'google', Array.from({ length: 7 }, () => ({ input: 40_000, cached: 0, output: 4_000 })))
    const summed = toCents(Number(calcPrice({ input_tokens: 280_000, output_tokens: 28_000 }, 'gemini-2.5-pro', { providerId: 'google' })!.total_price))
    expect(perRequest).toBeLessThan(summed) // the sum is past the 200k threshold, no request is
    expect(meter.totals().cost_cents).toBe(perRequest)
    meter.record('long', 'gemini-2.5-pro', { input: 250_000, output: 1_000 })
    const long = toCents(Number(calcPrice({ input_tokens: 250_000, output_tokens: 1_000 }, 'gemini-2.5-pro', { providerId: 'google' })!.total_price))
    expect(meter.totals().cost_cents).toBeGreaterThanOrEqual(perRequest + long - 1)
  })
})
