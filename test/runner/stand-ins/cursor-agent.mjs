// Stand-in for Cursor's agent CLI: `cursor-agent -p --output-format stream-json`.
import path from 'node:path'
import { begin, FAILURES } from './common.mjs'

const s = begin('cursor-agent', '2025.10.28-0a91dc2', () => [path.join(process.env.HOME, '.cursor', 'mcp.json')])
const { plan, usage: u, session, model, emit } = s
emit({ type: 'system', subtype: 'init', apiKeySource: 'env', cwd: process.cwd(), session_id: session, model, permissionMode: 'default' })
emit({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: s.prompt }] }, session_id: session })
for (const text of plan.text ?? ['Looking at the task.']) emit({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text }] }, session_id: session })
await s.pause()
;(plan.tools ?? []).forEach((tool, i) => {
  const call = tool.name === 'read'
    ? (result) => ({ readToolCall: { args: tool.input, ...(result ? { result } : {}) } })
    : (result) => ({ function: { name: tool.name, arguments: JSON.stringify(tool.input) }, ...(result ? { result } : {}) })
  emit({ type: 'tool_call', subtype: 'started', call_id: `call_${i}`, tool_call: call(null), session_id: session })
  emit({ type: 'tool_call', subtype: 'completed', call_id: `call_${i}`, tool_call: call(tool.error ? { error: { message: tool.output } } : { success: { content: tool.output, totalLines: 3 } }), session_id: session })
})
if (plan.fail) {
  // Cursor's CLI reports a failure on standard error with a non-zero exit, and no JSON.
  process.stderr.write(`Error: ${FAILURES[plan.fail]}\n`)
  s.exit(1)
} else {
  emit({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: plan.reply ?? 'Done.' }] }, session_id: session })
  emit({
    type: 'result', subtype: 'success', duration_ms: 1500, duration_api_ms: 1500, is_error: false, result: plan.reply ?? 'Done.', session_id: session, request_id: 'req-1',
    ...(plan.usage ? { usage: { inputTokens: u.input, outputTokens: u.output, cacheReadTokens: u.cacheRead, cacheWriteTokens: u.cacheWrite } } : {}),
  })
  s.exit(0)
}
