// Stand-in for Gemini CLI: `gemini --output-format stream-json`.
import path from 'node:path'
import { begin } from './common.mjs'

const s = begin('gemini', '0.61.0', () => [path.join(process.env.HOME, '.gemini', 'settings.json')])
const { plan, usage: u, session, model, emit } = s
const ts = () => new Date().toISOString()
emit({ type: 'init', timestamp: ts(), session_id: session, model })
emit({ type: 'message', timestamp: ts(), role: 'user', content: s.prompt })
for (const text of plan.text ?? ['Looking at the task.']) {
  emit({ type: 'message', timestamp: ts(), role: 'assistant', content: text.slice(0, 5), delta: true })
  emit({ type: 'message', timestamp: ts(), role: 'assistant', content: `${text.slice(5)}\n`, delta: true })
}
await s.pause()
;(plan.tools ?? []).forEach((tool, i) => {
  emit({ type: 'tool_use', timestamp: ts(), tool_name: tool.name, tool_id: `${tool.name}-${i}`, parameters: tool.input })
  emit({ type: 'tool_result', timestamp: ts(), tool_id: `${tool.name}-${i}`, status: tool.error ? 'error' : 'success', ...(tool.error ? { error: { type: 'tool_error', message: tool.output } } : { output: tool.output }) })
})
// As Gemini CLI's convertToStreamStats gives them: output_tokens is the reply alone
// (candidatesTokenCount); total_tokens (totalTokenCount) counts the thoughts too.
const tokens = {
  total_tokens: u.input + u.cacheRead + u.output + u.thoughts, input_tokens: u.input + u.cacheRead, output_tokens: u.output, cached: u.cacheRead, input: u.input,
}
const stats = { ...tokens, duration_ms: 1800, tool_calls: (plan.tools ?? []).length, models: { [model]: tokens } }
const failures = {
  rate_limit: { type: 'Error', message: "[API Error: Quota exceeded for quota metric 'Generate Content API requests per minute' (429 RESOURCE_EXHAUSTED)]" },
  overloaded: { type: 'Error', message: '[API Error: The model is overloaded. Please try again later. (503 UNAVAILABLE)]' },
  auth: { type: 'Error', message: '[API Error: API key not valid. Please pass a valid API key.]' },
  error: { type: 'FatalToolExecutionError', message: 'Error executing tool write_file: disk full' },
}
if (plan.fail) {
  emit({ type: 'error', timestamp: ts(), severity: 'error', message: failures[plan.fail].message })
  emit({ type: 'result', timestamp: ts(), status: 'error', error: failures[plan.fail], stats })
  s.exit(1)
} else {
  emit({ type: 'message', timestamp: ts(), role: 'assistant', content: plan.reply ?? 'Done.', delta: true })
  emit({ type: 'result', timestamp: ts(), status: 'success', stats })
  s.exit(0)
}
