// Stand-in for Codex: `codex exec --json [resume <thread id>] -`. Like Codex, it keeps a thread's
// rollout in $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl, with a
// `token_count` event per model response holding the thread's totals and that response's share,
// and a resumed thread goes on counting from the totals recorded last: its turn.completed usage
// is the thread's, earlier runs included.
import fs from 'node:fs'
import path from 'node:path'
import { begin } from './common.mjs'

const s = begin('codex', 'codex-cli 0.171.0')
const { plan: asked, usage: u, emit } = s
// plan.failFor: the failure only for these -m values (a fallback model then succeeds).
const argModel = process.argv.includes('-m') ? process.argv[process.argv.indexOf('-m') + 1] : null
const plan = asked.failFor && !asked.failFor.includes(argModel) ? { ...asked, fail: undefined } : asked
const resume = process.argv.indexOf('resume')
const session = resume >= 0 ? process.argv[resume + 1] : s.session

const sessions = path.join(process.env.CODEX_HOME ?? path.join(process.env.HOME, '.codex'), 'sessions')
const now = new Date()
const rollout = findRollout() ?? newRollout()
const recorded = fs.readFileSync(rollout, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
const before = recorded.findLast((r) => r.payload?.type === 'token_count' && r.payload.info)?.payload.info.total_token_usage
const record = (payload) => fs.appendFileSync(rollout, `${JSON.stringify({ timestamp: new Date().toISOString(), type: 'event_msg', payload })}\n`)

emit({ type: 'thread.started', thread_id: session })
emit({ type: 'turn.started' })
record({ type: 'token_count', info: null, rate_limits: { primary: { used_percent: 7, window_minutes: 300 } } })
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
  emit({ type: 'error', message: plan.failText ?? failures[plan.fail] })
  emit({ type: 'turn.failed', error: { message: plan.failText ?? failures[plan.fail] } })
  s.exit(1)
} else {
  emit({ type: 'item.completed', item: { id: 'item_9', type: 'agent_message', text: plan.reply ?? 'Done.' } })
  const last = { input_tokens: u.input + u.cacheRead, cached_input_tokens: u.cacheRead, output_tokens: u.output, reasoning_output_tokens: 0, total_tokens: u.input + u.cacheRead + u.output }
  const total = Object.fromEntries(Object.entries(last).map(([k, v]) => [k, v + (before?.[k] ?? 0)]))
  record({ type: 'token_count', info: { total_token_usage: total, last_token_usage: last, model_context_window: 272000 }, rate_limits: null })
  const { input_tokens, cached_input_tokens, output_tokens } = total
  emit({ type: 'turn.completed', usage: { input_tokens, cached_input_tokens, output_tokens } })
  s.exit(0)
}

function findRollout() {
  if (!fs.existsSync(sessions)) return null
  const file = fs.readdirSync(sessions, { recursive: true }).find((f) => f.endsWith(`-${session}.jsonl`))
  return file ? path.join(sessions, file) : null
}

function newRollout() {
  const day = path.join(sessions, String(now.getFullYear()), String(now.getMonth() + 1).padStart(2, '0'), String(now.getDate()).padStart(2, '0'))
  fs.mkdirSync(day, { recursive: true })
  const file = path.join(day, `rollout-${now.toISOString().slice(0, 19).replace(/:/g, '-')}-${session}.jsonl`)
  fs.writeFileSync(file, `${JSON.stringify({ timestamp: now.toISOString(), type: 'session_meta', payload: { id: session, cwd: process.cwd(), originator: 'codex_exec', cli_version: '0.140.0' } })}\n`)
  return file
}
