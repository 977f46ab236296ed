// Stand-in for Codex: `codex exec --json`.
import { begin } from './common.mjs'

const s = begin('codex', 'codex-cli 0.46.0')
const { plan, usage: u, session, emit } = s
emit({ type: 'thread.started', thread_id: session })
emit({ type: 'turn.started' })
emit({ type: 'item.completed', item: { id: 'item_0', type: 'reasoning', text: '**Reading the task**' } })
for (const text of plan.text ?? ['Looking at the task.']) emit({ type: 'item.completed', item: { id: 'item_1', type: 'agent_message', text } })
await s.pause()
;(plan.tools ?? []).forEach((tool, i) => {
  const item = { id: `item_${i + 2}`, type: 'command_execution', command: `bash -lc '${tool.input.command}'`, aggregated_output: '', exit_code: null, status: 'in_progress' }
  emit({ type: 'item.started', item })
  emit({ type: 'item.completed', item: { ...item, aggregated_output: tool.output, exit_code: tool.error ? 1 : 0, status: tool.error ? 'failed' : 'completed' } })
})
const failures = {
  rate_limit: 'stream error: exceeded retry limit, last status: 429 Too Many Requests',
  overloaded: 'unexpected status 503 Service Unavailable: model is overloaded',
  auth: 'unexpected status 401 Unauthorized: Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.',
  error: 'sandbox error: command was killed',
}
if (plan.fail) {
  emit({ type: 'error', message: failures[plan.fail] })
  emit({ type: 'turn.failed', error: { message: failures[plan.fail] } })
  s.exit(1)
} else {
  emit({ type: 'item.completed', item: { id: 'item_9', type: 'agent_message', text: plan.reply ?? 'Done.' } })
  emit({ type: 'turn.completed', usage: { input_tokens: u.input + u.cacheRead, cached_input_tokens: u.cacheRead, output_tokens: u.output } })
  s.exit(0)
}
