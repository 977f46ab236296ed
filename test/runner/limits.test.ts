// Recognising provider limits in what each agent CLI prints (src/runner/adapters/cli/limits.ts),
// with the texts the CLIs print, and the runner's cool-downs (src/runner/cooldowns.ts).
import { describe, expect, it } from 'vitest'
import { parseDuration, providerOf, recogniseLimit } from '../../src/runner/adapters/cli/limits.ts'
import { Cooldowns, keptCooldowns } from '../../src/runner/cooldowns.ts'
import { tempDir } from '../server-process.ts'

const NOW = new Date('2026-11-29T07:00:00.000Z')
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000).toISOString()

describe('recogniseLimit', () => {
  const cases: [string, string, string, { kind: string; reset_at: string | null }][] = [
    ['Claude Code 429', 'anthropic',
      'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization"}}',
      { kind: 'rate_limit', reset_at: null }],
    ['Claude Code 529', 'anthropic', 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      { kind: 'overloaded', reset_at: null }],
    ['Claude Code subscription, older', 'anthropic', 'Claude AI usage limit reached|1795944000',
      { kind: 'usage_limit', reset_at: '2026-11-29T09:20:00.000Z' }],
    ['Claude Code subscription, clock and zone', 'anthropic', 'Claude usage limit reached. Your limit will reset at 9am (America/Chicago).',
      { kind: 'usage_limit', reset_at: '2026-11-29T15:00:00.000Z' }],
    ['Claude Code session limit', 'anthropic', "You've hit your session limit · resets 1:30pm (Asia/Dhaka)",
      { kind: 'usage_limit', reset_at: '2026-11-29T07:30:00.000Z' }],
    ['Codex usage limit event', 'openai',
      '{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","resets_at":1795946200,"resets_in_seconds":9568}',
      { kind: 'usage_limit', reset_at: '2026-11-29T09:56:40.000Z' }],
    ['Codex usage limit message', 'openai', "You've hit your usage limit. Upgrade to Pro or try again in 2 hours 5 minutes.",
      { kind: 'usage_limit', reset_at: at(7500) }],
    ['Codex rate limit', 'openai', 'stream error: Rate limit reached for gpt-5 on tokens per min (TPM): Limit 30000. Please try again in 1.5s.',
      { kind: 'rate_limit', reset_at: at(1.5) }],
    ['Codex retries spent', 'openai', 'stream error: exceeded retry limit, last status: 429 Too Many Requests',
      { kind: 'rate_limit', reset_at: null }],
    ['Gemini retryDelay', 'google',
      '{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]}}',
      { kind: 'rate_limit', reset_at: at(37) }],
    ['Gemini quota', 'google', '[API Error: You have exhausted your capacity on this model. Your quota will reset after 2h52m39s.]',
      { kind: 'usage_limit', reset_at: at(2 * 3600 + 52 * 60 + 39) }],
    ['Gemini capacity', 'google', 'No capacity available for model gemini-3-flash-preview on the server MODEL_CAPACITY_EXHAUSTED',
      { kind: 'overloaded', reset_at: null }],
    ['OpenCode APIError', 'anthropic', 'APIError: Rate limit exceeded: 429 Too Many Requests {"statusCode":429,"responseHeaders":{"retry-after":"30"}}',
      { kind: 'rate_limit', reset_at: at(30) }],
    ['OpenAI quota without reset', 'openai', 'insufficient_quota: You exceeded your current quota, please check your plan and billing details.',
      { kind: 'usage_limit', reset_at: at(30 * 60) }],
  ]
  for (const [name, provider, text, expected] of cases) {
    it(name, () => expect(recogniseLimit(text, provider, NOW)).toEqual({ provider, ...expected }))
  }

  it('is null for failures that are not limits', () => {
    for (const text of ['Invalid API key · Please run /login', 'Tool execution crashed: ENOSPC', 'failed (error_during_execution)']) {
      expect(recogniseLimit(text, 'anthropic', NOW)).toBeNull()
    }
  })

  it('a reset already past counts as unknown', () => {
    expect(recogniseLimit('Claude AI usage limit reached|1700000000', 'anthropic', NOW)).toEqual({ provider: 'anthropic', kind: 'usage_limit', reset_at: at(1800) })
  })

  it('reads durations and the provider of an OpenCode model', () => {
    expect(parseDuration('2h52m39s')).toBe(10359)
    expect(parseDuration('20ms')).toBeCloseTo(0.02)
    expect(parseDuration('soon')).toBeNull()
    expect(providerOf({ name: 'agent_cli_4', executable: 'opencode' }, 'anthropic/claude-sonnet-4-5')).toBe('anthropic')
    expect(providerOf({ name: 'agent_cli_4', executable: 'opencode' }, undefined)).toBe('opencode')
    expect(providerOf({ name: 'agent_cli_1', providerId: 'anthropic', executable: 'claude' }, 'openai/gpt-5')).toBe('anthropic')
  })
})

describe('Cooldowns', () => {
  it('rests the adapters of a provider until its reset, then forgets it', () => {
    let now = NOW.getTime()
    const cooldowns = new Cooldowns(() => now)
    const all = ['agent_cli_1', 'agent_cli_2', 'agent_cli_4', 'http']
    cooldowns.add({ provider: 'anthropic', kind: 'usage_limit', reset_at: at(600) }, 'agent_cli_4', 'OpenCode: usage limit')
    expect(cooldowns.list()).toEqual([{ provider: 'anthropic', until: at(600) }])
    // Claude Code uses the same credential; OpenCode met it.
    expect(cooldowns.available(all)).toEqual(['agent_cli_2', 'http'])
    cooldowns.add({ provider: 'openai', kind: 'rate_limit', reset_at: null }, 'agent_cli_2', 'Codex: rate limited')
    expect(cooldowns.list()).toEqual([{ provider: 'anthropic', until: at(600) }, { provider: 'openai', until: at(60) }])
    now += 61_000
    expect(cooldowns.available(all)).toEqual(['agent_cli_2', 'http'])
    now += 540_000
    expect(cooldowns.list()).toEqual([])
    expect(cooldowns.available(all)).toEqual(all)
  })

  it('keeps the rests of a runner in its cache folder: a runner started again with its id rests the same credentials', () => {
    let now = NOW.getTime()
    const cacheDir = tempDir('shopfloor-cooldowns-')
    const before = new Cooldowns(() => now, { cacheDir, runnerId: 'ada@box' })
    before.add({ provider: 'anthropic', kind: 'usage_limit', reset_at: at(600) }, 'agent_cli_4', 'OpenCode: usage limit')
    before.add({ provider: 'openai', kind: 'rate_limit', reset_at: at(30) }, 'agent_cli_2', 'Codex: rate limited')

    const after = new Cooldowns(() => now, { cacheDir, runnerId: 'ada@box' })
    expect(after.list()).toEqual([{ provider: 'anthropic', until: at(600) }, { provider: 'openai', until: at(30) }])
    expect(after.available(['agent_cli_1', 'agent_cli_2', 'agent_cli_3', 'agent_cli_4'])).toEqual(['agent_cli_3'])
    // Another runner id keeps its own (it may use other credentials).
    expect(new Cooldowns(() => now, { cacheDir, runnerId: 'other' }).list()).toEqual([])
    expect(keptCooldowns(cacheDir, now)).toEqual([{ runnerId: 'ada@box', cooldowns: [
      { provider: 'anthropic', until: at(600), adapters: ['agent_cli_4'], reason: 'OpenCode: usage limit' },
      { provider: 'openai', until: at(30), adapters: ['agent_cli_2'], reason: 'Codex: rate limited' },
    ] }])
    // A rest over by the time of the restart is forgotten.
    now += 31_000
    expect(new Cooldowns(() => now, { cacheDir, runnerId: 'ada@box' }).list()).toEqual([{ provider: 'anthropic', until: at(600) }])
    expect(keptCooldowns(cacheDir, now)[0]!.cooldowns.map((c) => c.provider)).toEqual(['anthropic'])
  })
})
