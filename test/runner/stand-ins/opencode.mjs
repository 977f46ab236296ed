// Stand-in for OpenCode: `opencode run --format json`.
import path from 'node:path'
import { begin } from './common.mjs'

const s = begin('opencode', '1.18.33', () => [path.join(process.env.XDG_CONFIG_HOME, 'opencode', 'opencode.json')])
const { plan, usage: u, session, emit } = s
let n = 0
const part = (type, fields) => ({ id: `prt_${++n}`, sessionID: session, messageID: 'msg_1', type, ...fields })
const event = (type, p) => emit({ type, timestamp: Date.now(), sessionID: session, part: p })
const half = (v) => Math.floor(v / 2)
const cost = plan.cost ?? 0
event('step_start', part('step-start', { snapshot: 'a1b2c3' }))
for (const text of plan.text ?? ['Looking at the task.']) event('text', part('text', { text, time: { start: Date.now(), end: Date.now() } }))
await s.pause()
for (const tool of plan.tools ?? []) {
  event('tool_use', part('tool', { callID: `call_${n}`, tool: tool.name, state: tool.error
    ? { status: 'error', input: tool.input, error: tool.output, time: { start: 1, end: 2 } }
    : { status: 'completed', input: tool.input, output: tool.output, title: tool.name, metadata: {}, time: { start: 1, end: 2 } } }))
}
const tokens = (f) => ({ input: f(u.input), output: f(u.output), reasoning: 0, cache: { read: f(u.cacheRead), write: f(u.cacheWrite) } })
event('step_finish', part('step-finish', { reason: 'tool-calls', snapshot: 'a1b2c3', cost: cost / 2, tokens: tokens(half) }))
const failures = {
  rate_limit: { name: 'APIError', data: { message: 'Rate limit exceeded: 429 Too Many Requests', statusCode: 429, isRetryable: true } },
  overloaded: { name: 'APIError', data: { message: 'Overloaded', statusCode: 529, isRetryable: true } },
  auth: { name: 'ProviderAuthError', data: { providerID: 'anthropic', message: 'invalid x-api-key' } },
  error: { name: 'UnknownError', data: { message: 'Tool crashed' } },
}
if (plan.fail) {
  emit({ type: 'error', timestamp: Date.now(), sessionID: session, error: failures[plan.fail] })
  s.exit(1)
} else {
  event('step_start', part('step-start', { snapshot: 'd4e5f6' }))
  event('text', part('text', { text: plan.reply ?? 'Done.', time: { start: Date.now(), end: Date.now() } }))
  event('step_finish', part('step-finish', { reason: 'stop', snapshot: 'd4e5f6', cost: cost / 2, tokens: tokens((v) => v - half(v)) }))
  s.exit(0)
}
