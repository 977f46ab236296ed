// Recognising a provider's quota, rate limit or overload in what an agent CLI printed, with the
// reset it named, so that the run is deferred to the reset instead of failed (docs/runs.md
// "Provider limits"). Each CLI words it its own way, and the words are matched as they print them:
//
//   Claude Code  429 `rate_limit_error` ("API Error: 429 {...}"), 529 `overloaded_error`; on a
//                subscription "Claude AI usage limit reached|<unix seconds>" (older releases),
//                "Claude usage limit reached. Your limit will reset at 9am (America/Chicago)." and
//                "You've hit your [session |weekly ]limit · resets 1:30am (Asia/Dhaka)".
//   Codex        `usage_limit_reached` with `resets_in_seconds` / `resets_at`, "You've hit your
//                usage limit ... try again in 2 hours 5 minutes", `rate_limit_exceeded` "Rate limit
//                reached ... Please try again in 1.5s", "exceeded retry limit, last status: 429".
//   Gemini CLI   429 `RESOURCE_EXHAUSTED` with `"retryDelay": "37s"` / "Please retry in 37.5s",
//                "Your quota will reset after 2h52m39s" (TerminalQuotaError), "exhausted your daily
//                quota", `MODEL_CAPACITY_EXHAUSTED` / "No capacity available" (overloaded), 503.
//   OpenCode     the AI SDK's APICallError of whichever provider the model names ("anthropic/..."):
//                statusCode 429 with `retry-after` / `retry-after-ms` headers, and the provider's
//                own texts above.
/** What a CLI's failure says of its provider: a limit the run is deferred for, or an overload (a fallback model's cue). */
export interface RecognisedLimit {
  provider: string
  kind: 'rate_limit' | 'usage_limit' | 'overloaded'
  reset_at: string | null
}

/** A usage limit (plan allowance, quota) whose reset the CLI did not name is retried after this long. */
export const UNKNOWN_USAGE_RESET_MINUTES = 30

/**
 * The CLIs' own retrying kept short, so that a limited run ends in seconds rather than
 * minutes: Claude Code retries a 429 or 529 ten times by default.
 */
export const SHORT_RETRY_ENV: Record<string, Record<string, string>> = {
  agent_cli_1: { CLAUDE_CODE_MAX_RETRIES: '2' },
}

const UNITS: Record<string, number> = {
  ms: 0.001, millisecond: 0.001, milliseconds: 0.001,
  s: 1, sec: 1, secs: 1, second: 1, seconds: 1,
  m: 60, min: 60, mins: 60, minute: 60, minutes: 60,
  h: 3600, hr: 3600, hrs: 3600, hour: 3600, hours: 3600,
  d: 86400, day: 86400, days: 86400,
}

/** "2h52m39s", "2 hours 5 minutes", "1.5s", "20ms": seconds, or null. */
export function parseDuration(text: string): number | null {
  let total = 0
  let found = false
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)\s*(milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)(?![a-z])/gi)) {
    total += Number(m[1]) * UNITS[m[2]!.toLowerCase()]!
    found = true
  }
  return found ? total : null
}

/** The offset of `timeZone` from UTC at `at`, in minutes (Intl; null for an unknown zone). */
function zoneOffsetMinutes(timeZone: string, at: Date): number | null {
  try {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    }).formatToParts(at)
    const get = (type: string) => Number(parts.find((p) => p.type === type)!.value)
    const local = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'))
    return Math.round((local - at.getTime()) / 60000)
  } catch {
    return null
  }
}

/** The next instant after `now` that is `hour:minute` on the clock of `timeZone` (UTC when none). */
function nextClockTime(hour: number, minute: number, timeZone: string | null, now: Date): Date | null {
  for (let day = -1; day <= 2; day++) {
    const guess = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + day, hour, minute))
    const offset = timeZone ? zoneOffsetMinutes(timeZone, guess) : 0
    if (offset === null) return null
    const at = new Date(guess.getTime() - offset * 60000)
    if (at.getTime() > now.getTime()) return at
  }
  return null
}

/** "9am", "1:30am", "3:04 PM", "15:00": hour and minute. */
function parseClock(text: string): { hour: number; minute: number } | null {
  const m = /^(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?$/i.exec(text.trim())
  if (!m) return null
  let hour = Number(m[1])
  const minute = Number(m[2] ?? 0)
  const half = m[3]?.[0]?.toLowerCase()
  if (half === 'p' && hour < 12) hour += 12
  if (half === 'a' && hour === 12) hour = 0
  return hour < 24 && minute < 60 ? { hour, minute } : null
}

const plus = (now: Date, seconds: number) => new Date(now.getTime() + Math.ceil(seconds * 1000))

/** The reset the text names, if any. */
function resetIn(text: string, now: Date): Date | null {
  // Claude Code's older "usage limit reached|<unix seconds>", Codex's resets_at.
  const epoch = /usage limit reached\|(\d{9,11})/i.exec(text) ?? /"?resets_at"?\s*[:=]\s*(\d{9,11})/.exec(text)
  if (epoch) return new Date(Number(epoch[1]) * 1000)
  const seconds = /"?resets_in_seconds"?\s*[:=]\s*(\d+)/.exec(text)
  if (seconds) return plus(now, Number(seconds[1]))
  // OpenCode's AI SDK error carries the response headers.
  const afterMs = /"?retry-after-ms"?\s*[:=]\s*"?(\d+(?:\.\d+)?)/i.exec(text)
  if (afterMs) return plus(now, Number(afterMs[1]) / 1000)
  const after = /"?retry-after"?\s*[:=]\s*"?(\d+(?:\.\d+)?)"?/i.exec(text)
  if (after) return plus(now, Number(after[1]))
  // Gemini's RetryInfo.
  const delay = /"?retryDelay"?\s*[:=]\s*"?(\d+(?:\.\d+)?s)/.exec(text)
  if (delay) return plus(now, parseDuration(delay[1]!)!)
  // Claude Code's subscription messages: a clock time in a named zone.
  const clock = /(?:reset at|resets)\s+(\d{1,2}(?::\d{2})?\s*[ap]m)\s*(?:\(([A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)*)\))?/i.exec(text)
  if (clock) {
    const time = parseClock(clock[1]!)
    const at = time && nextClockTime(time.hour, time.minute, clock[2] ?? null, now)
    if (at) return at
  }
  // "try again in 2 hours 5 minutes", "Please retry in 37.5s", "reset after 2h52m39s".
  const phrase = /(?:try again in|retry in|retry after|reset after|resets in|wait)\s+((?:\d+(?:\.\d+)?\s*[a-z]+[\s,]*(?:and\s+)?){1,4})/i.exec(text)
  if (phrase) {
    const s = parseDuration(phrase[1]!)
    if (s !== null) return plus(now, s)
  }
  // Codex's "try again at 3:04 PM" (local to the runner: UTC here).
  const at = /try again at\s+(\d{1,2}:\d{2}\s*[ap]\.?m\.?)/i.exec(text)
  if (at) {
    const time = parseClock(at[1]!)
    const next = time && nextClockTime(time.hour, time.minute, null, now)
    if (next) return next
  }
  return null
}

const USAGE = /usage limit|usage_limit_reached|hit your (?:session |weekly |daily |monthly )?limit|insufficient_quota|exceeded your current quota|exhausted your (?:daily )?(?:quota|capacity)|quota will reset|TerminalQuotaError|quota exceeded for quota metric .*per ?day/i
const OVERLOADED = /overloaded_error|\b529\b|overloaded|MODEL_CAPACITY_EXHAUSTED|no capacity available|\b503\b.*(?:unavailable|overloaded)|UNAVAILABLE.*(?:overloaded|high demand)/i
const RATE = /rate_limit_error|rate_limit_exceeded|rate limit|RESOURCE_EXHAUSTED|\b429\b|too many requests|RetryableQuotaError/i

/**
 * The provider limit that `text` (a CLI's error, standard error or result) reports, with its
 * reset, or null when it reports none. `provider`: whose credential the CLI used.
 */
export function recogniseLimit(text: string, provider: string, now = new Date()): RecognisedLimit | null {
  const kind: RecognisedLimit['kind'] | null = USAGE.test(text) ? 'usage_limit' : OVERLOADED.test(text) ? 'overloaded' : RATE.test(text) ? 'rate_limit' : null
  if (!kind) return null
  let reset = resetIn(text, now)
  if (reset && reset.getTime() <= now.getTime()) reset = null
  if (!reset && kind === 'usage_limit') reset = plus(now, UNKNOWN_USAGE_RESET_MINUTES * 60)
  return { provider, kind, reset_at: reset ? reset.toISOString() : null }
}

/**
 * Whose credential a CLI used: its own vendor's, or for OpenCode (which speaks to many) the
 * provider its model names, "anthropic/claude-sonnet-4" -> anthropic.
 */
export function providerOf(dialect: { name: string; providerId?: string; executable: string }, model: string | undefined): string {
  if (dialect.providerId) return dialect.providerId
  const named = model?.includes('/') ? model.split('/')[0]!.toLowerCase() : null
  return named && /^[a-z0-9][a-z0-9._-]*$/.test(named) ? named : dialect.executable
}

const KIND_WORDS: Record<RecognisedLimit['kind'], string> = { rate_limit: 'rate limit', usage_limit: 'usage limit', overloaded: 'overloaded' }

/** "anthropic usage limit, resets 2026-11-29T09:00:00.000Z": provider, limit and reset in words, for the run's error. */
export function limitWords(limit: RecognisedLimit): string {
  return `${limit.provider} ${KIND_WORDS[limit.kind]}, ${limit.reset_at ? `resets ${limit.reset_at}` : 'reset not given (tried again in a minute)'}`
}
