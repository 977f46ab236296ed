// A scripted model server for the real agent CLIs: it speaks each vendor's wire API on
// 127.0.0.1 with streaming (Anthropic Messages, OpenAI Responses, Gemini streamGenerateContent,
// OpenAI Chat Completions), and answers by a script found in the conversation: a line
//   MODEL_SCRIPT:{"steps": [...], "usage": {...}}
// in the task's description, which reaches the model in the agent's prompt. Each answer is the
// script's step at the number of tool results the conversation holds so far:
//   {"tool": "create_task", "args": {...}}   calls the tool whose name ends so (MCP tools come
//                                            prefixed by each CLI in its own way)
//   {"text": "..."}                          answers with text and ends the turn
//   {"status": 401|500|529}                  refuses with the vendor's error body
//   {"hang": true}                           never answers (until the server closes)
// A model whose name starts with `unknown-` is refused as the vendors refuse one (404).
// Past the last step it repeats the last one (`{"steps": [{"tool": "get_context"}]}` calls a
// tool forever), or with `"cycle": true` starts again from the first; `"answer_ms"` waits so long
// before each scripted answer, as a vendor does (some CLIs stop an agent
// that calls one tool the same way again and again). `usage` (input, cached, output) is what every answer reports; every request is
// logged with what was answered, so that tests compare what the runner recorded with what the
// model server reported. Requests without the script (a CLI's own side requests: titles,
// summaries, checks) get a short text with usage of their own, logged all the same.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export type Wire = 'anthropic' | 'responses' | 'gemini' | 'chat'

export interface ScriptUsage {
  /** Input tokens in all (cached ones among them). */
  input: number
  /** Of which read from the cache. */
  cached: number
  output: number
}

export type Step = { tool: string; args?: Record<string, unknown> } | { text: string } | { status: number } | { hang: true }

export interface Script {
  steps: Step[]
  usage?: ScriptUsage
  /** Names the test's run in the log. */
  tag?: string
  /** Past the last step, start again from the first (else the last is repeated). */
  cycle?: boolean
  /**
   * Milliseconds before each scripted answer, as a vendor takes to answer. At no delay a CLI asks
   * again the instant an answer ends, faster than any runner can stop it once its spend is reached.
   */
  answer_ms?: number
}

export interface Answered {
  wire: Wire
  path: string
  model: string
  /** The script's tag, when the request held the script. */
  tag: string | null
  scripted: boolean
  step: number
  /** What the answer reported; zero for a refusal. */
  usage: ScriptUsage
  status: number
  /** The tool called, by the name the CLI gave it. */
  tool: string | null
  toolNames: string[]
  /** The request's body as it came, for a scripted request (what the CLI told the model); else ''. */
  request: string
}

const SIDE_USAGE: ScriptUsage = { input: 120, cached: 0, output: 8 }
const DEFAULT_USAGE: ScriptUsage = { input: 2000, cached: 0, output: 100 }
const MARKER = 'MODEL_SCRIPT:'

export interface ModelServer {
  url: string
  log: Answered[]
  /** What the scripted requests reported, summed (and every request, side ones included). */
  totals(filter?: (a: Answered) => boolean): ScriptUsage
  close(): Promise<void>
}

export async function startModelServer(): Promise<ModelServer> {
  const log: Answered[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      try {
        answer(req, res, body, log)
      } catch (err: any) {
        res.writeHead(500, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ error: { message: `model server: ${err.message}` } }))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    totals(filter = () => true) {
      const sum = { input: 0, cached: 0, output: 0 }
      for (const a of log.filter(filter)) for (const k of Object.keys(sum) as (keyof ScriptUsage)[]) sum[k] += a.usage[k]
      return sum
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

function answer(req: http.IncomingMessage, res: http.ServerResponse, raw: string, log: Answered[]): void {
  const url = new URL(req.url ?? '/', 'http://x')
  const path = url.pathname
  const json = raw ? JSON.parse(raw) : {}
  // Token counting and model lists, which some CLIs ask for.
  if (path.endsWith('/count_tokens') || path.endsWith(':countTokens')) {
    const reply = path.endsWith(':countTokens') ? { totalTokens: 100 } : { input_tokens: 100 }
    return sendJson(res, 200, reply)
  }
  if (req.method === 'GET') {
    if (/\/models\/?$/.test(path)) return sendJson(res, 200, { object: 'list', data: [], models: [] })
    return sendJson(res, 404, { error: { message: `no ${path}` } })
  }
  const wire: Wire | null = path.endsWith('/messages') ? 'anthropic'
    : path.endsWith('/responses') ? 'responses'
    : /:(stream)?generateContent$/i.test(path) ? 'gemini'
    : path.endsWith('/chat/completions') ? 'chat'
    : null
  if (!wire) return sendJson(res, 404, { error: { message: `no ${path}` } })

  const model = wire === 'gemini' ? decodeURIComponent(path.split('/models/')[1]?.split(':')[0] ?? '') : String(json.model ?? '')
  const script = findScript(json)
  const toolNames = toolsOf(wire, json)
  const step = toolResults(wire, json)
  // A side request (no script, or no tools to call: a title, a summary, a check) gets plain text.
  let current: Step = { text: 'OK' }
  if (script && toolNames.length) {
    const at = script.cycle ? step % script.steps.length : Math.min(step, script.steps.length - 1)
    current = script.steps[at] ?? { text: 'Done.' }
  }
  else if (script && script.steps.some((s) => 'status' in s)) current = script.steps.find((s) => 'status' in s)!
  const usage = script && toolNames.length ? (script.usage ?? DEFAULT_USAGE) : SIDE_USAGE
  const entry: Answered = { wire, path, model, tag: script?.tag ?? null, scripted: Boolean(script && toolNames.length), step, usage, status: 200, tool: null, toolNames,
    request: script && toolNames.length ? raw : '' }
  log.push(entry)

  if (model.startsWith('unknown-')) {
    entry.status = 404
    entry.usage = { input: 0, cached: 0, output: 0 }
    return sendJson(res, 404, unknownModel(wire, model))
  }
  if ('hang' in current) {
    entry.usage = { input: 0, cached: 0, output: 0 }
    return
  }
  if ('status' in current) {
    entry.status = current.status
    entry.usage = { input: 0, cached: 0, output: 0 }
    return sendJson(res, current.status, refusal(wire, current.status))
  }
  let reply: Reply
  if ('tool' in current) {
    const name = toolNames.find((n) => n === current.tool || n.endsWith(`_${current.tool}`) || n.endsWith(`.${current.tool}`) || n.endsWith(`/${current.tool}`))
    if (!name) throw new Error(`no tool ending in ${current.tool} among ${toolNames.join(', ')}`)
    entry.tool = name
    reply = { kind: 'tool', name, args: current.args ?? {}, id: `call_${log.length}` }
  } else if (wire === 'gemini' && wantsJson(json)) {
    // Gemini CLI's own checks (who speaks next) ask for JSON.
    reply = { kind: 'text', text: JSON.stringify({ reasoning: 'The model has finished.', next_speaker: 'user' }) }
  } else {
    reply = { kind: 'text', text: current.text }
  }
  const stream = wire === 'responses' || (wire === 'gemini' ? /stream/i.test(path) : json.stream === true)
  const writer = { anthropic: anthropicAnswer, responses: responsesAnswer, gemini: geminiAnswer, chat: chatAnswer }[wire]
  const send = () => writer(res, { model: model || 'model', reply, usage, stream, n: log.length })
  if (script?.answer_ms && entry.scripted) setTimeout(send, script.answer_ms)
  else send()
}

type Reply = { kind: 'text'; text: string } | { kind: 'tool'; name: string; args: Record<string, unknown>; id: string }

interface AnswerInput {
  model: string
  reply: Reply
  usage: ScriptUsage
  stream: boolean
  n: number
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

function sse(res: http.ServerResponse, events: { event?: string; data: unknown }[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  for (const e of events) res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`)
  res.end()
}

/** The script in the request: the first string anywhere in it holding the marker. */
function findScript(value: unknown): Script | null {
  if (typeof value === 'string') {
    const at = value.indexOf(MARKER)
    if (at < 0) return null
    const line = value.slice(at + MARKER.length).split('\n')[0]
    try {
      return JSON.parse(line.replace(/\\"/g, '"'))
    } catch {
      return null
    }
  }
  if (Array.isArray(value)) {
    for (const v of value) {
      const s = findScript(v)
      if (s) return s
    }
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) {
      const s = findScript(v)
      if (s) return s
    }
  }
  return null
}

function toolsOf(wire: Wire, json: any): string[] {
  const tools: any[] = Array.isArray(json.tools) ? json.tools : []
  if (wire === 'gemini') return tools.flatMap((t) => (t.functionDeclarations ?? []).map((f: any) => f.name))
  if (wire === 'chat') return tools.map((t) => t.function?.name).filter(Boolean)
  // Codex offers an MCP server's tools in a namespace (`mcp__shopfloor`): named here `namespace/tool`.
  return tools.flatMap((t) => (t.type === 'namespace' ? (t.tools ?? []).map((f: any) => `${t.name}/${f.name}`) : [t.name])).filter(Boolean)
}

/** How many tool results the conversation holds: the script's step. */
function toolResults(wire: Wire, json: any): number {
  switch (wire) {
    case 'anthropic':
      return (json.messages ?? []).flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((b: any) => b.type === 'tool_result').length
    case 'responses':
      return (Array.isArray(json.input) ? json.input : []).filter((i: any) => /_call_output$/.test(i.type ?? '')).length
    case 'gemini':
      return (json.contents ?? []).flatMap((c: any) => c.parts ?? []).filter((p: any) => p.functionResponse).length
    case 'chat':
      return (json.messages ?? []).filter((m: any) => m.role === 'tool').length
  }
}

function wantsJson(json: any): boolean {
  const config = json.generationConfig ?? {}
  return config.responseMimeType === 'application/json' || Boolean(config.responseJsonSchema ?? config.responseSchema)
}

/** Each vendor's answer to a model it does not have. */
function unknownModel(wire: Wire, model: string): unknown {
  if (wire === 'anthropic') return { type: 'error', error: { type: 'not_found_error', message: `model: ${model}` } }
  if (wire === 'gemini') return { error: { code: 404, message: `models/${model} is not found for API version v1beta`, status: 'NOT_FOUND' } }
  return { error: { message: `The model \`${model}\` does not exist or you do not have access to it.`, type: 'invalid_request_error', param: null, code: 'model_not_found' } }
}

/** Each vendor's error body for a status. */
function refusal(wire: Wire, status: number): unknown {
  const [type, message] = status === 401 ? ['authentication_error', 'invalid x-api-key']
    : status === 529 ? ['overloaded_error', 'Overloaded']
    : status === 429 ? ['rate_limit_error', 'Rate limited']
    : ['api_error', 'Internal server error']
  if (wire === 'anthropic') return { type: 'error', error: { type, message } }
  if (wire === 'gemini') {
    const g = status === 401 ? ['UNAUTHENTICATED', 'API key not valid. Please pass a valid API key.'] : status === 429 ? ['RESOURCE_EXHAUSTED', 'Quota exceeded'] : ['UNAVAILABLE', 'The model is overloaded. Please try again later.']
    return { error: { code: status, message: g[1], status: g[0] } }
  }
  const openai = status === 401 ? { message: 'Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.', type: 'invalid_request_error', code: 'invalid_api_key' }
    : status === 429 ? { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' }
    : { message: 'The server is overloaded or not ready yet.', type: 'server_error', code: 'server_error' }
  return { error: { ...openai, param: null } }
}

function anthropicAnswer(res: http.ServerResponse, { model, reply, usage, stream, n }: AnswerInput): void {
  const id = `msg_${n}`
  const start = { input_tokens: usage.input - usage.cached, cache_read_input_tokens: usage.cached, cache_creation_input_tokens: 0 }
  const block = reply.kind === 'text' ? { type: 'text', text: reply.text } : { type: 'tool_use', id: `toolu_${n}`, name: reply.name, input: reply.args }
  const stop = reply.kind === 'text' ? 'end_turn' : 'tool_use'
  if (!stream) {
    return sendJson(res, 200, { id, type: 'message', role: 'assistant', model, content: [block], stop_reason: stop, stop_sequence: null,
      usage: { ...start, output_tokens: usage.output } })
  }
  const events: { event: string; data: unknown }[] = [
    { event: 'message_start', data: { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...start, output_tokens: 1 } } } },
  ]
  if (block.type === 'text') {
    events.push(
      { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: (block as any).text } } },
    )
  } else {
    events.push(
      { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { ...block, input: {} } } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify((block as any).input) } } },
    )
  }
  events.push(
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output } } },
    { event: 'message_stop', data: { type: 'message_stop' } },
  )
  sse(res, events)
}

function responsesAnswer(res: http.ServerResponse, { model, reply, usage, n }: AnswerInput): void {
  const id = `resp_${n}`
  const item = reply.kind === 'text'
    ? { type: 'message', id: `msg_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: reply.text, annotations: [] }] }
    : { type: 'function_call', id: `fc_${n}`, call_id: reply.id, ...namespaced(reply.name), arguments: JSON.stringify(reply.args), status: 'completed' }
  const base = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model, status: 'in_progress', output: [] as unknown[] }
  const events: { event: string; data: unknown }[] = [
    { event: 'response.created', data: { type: 'response.created', sequence_number: 0, response: base } },
    { event: 'response.output_item.added', data: { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: reply.kind === 'text' ? { ...item, status: 'in_progress', content: [] } : { ...item, arguments: '', status: 'in_progress' } } },
  ]
  if (reply.kind === 'text') {
    events.push({ event: 'response.output_text.delta', data: { type: 'response.output_text.delta', sequence_number: 2, item_id: item.id, output_index: 0, content_index: 0, delta: reply.text } })
  }
  events.push(
    { event: 'response.output_item.done', data: { type: 'response.output_item.done', sequence_number: 3, output_index: 0, item } },
    { event: 'response.completed', data: { type: 'response.completed', sequence_number: 4, response: { ...base, status: 'completed', output: [item],
      usage: { input_tokens: usage.input, input_tokens_details: { cached_tokens: usage.cached }, output_tokens: usage.output,
        output_tokens_details: { reasoning_tokens: 0 }, total_tokens: usage.input + usage.output } } } },
  )
  sse(res, events)
}

/** A Responses function call's name, with its namespace when it has one. */
function namespaced(name: string): { name: string; namespace?: string } {
  const slash = name.indexOf('/')
  return slash < 0 ? { name } : { namespace: name.slice(0, slash), name: name.slice(slash + 1) }
}

function geminiAnswer(res: http.ServerResponse, { model, reply, usage, stream }: AnswerInput): void {
  const part = reply.kind === 'text' ? { text: reply.text } : { functionCall: { name: reply.name, args: reply.args } }
  const usageMetadata = {
    promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output,
    ...(usage.cached ? { cachedContentTokenCount: usage.cached } : {}),
  }
  const chunk = { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }], usageMetadata, modelVersion: model }
  if (!stream) return sendJson(res, 200, chunk)
  sse(res, [{ data: chunk }])
}

function chatAnswer(res: http.ServerResponse, { model, reply, usage, stream, n }: AnswerInput): void {
  const id = `chatcmpl-${n}`
  const created = Math.floor(Date.now() / 1000)
  const usageBody = { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output, prompt_tokens_details: { cached_tokens: usage.cached } }
  const finish = reply.kind === 'text' ? 'stop' : 'tool_calls'
  const call = reply.kind === 'tool' ? { id: reply.id, type: 'function', function: { name: reply.name, arguments: JSON.stringify(reply.args) } } : null
  if (!stream) {
    return sendJson(res, 200, { id, object: 'chat.completion', created, model, usage: usageBody,
      choices: [{ index: 0, finish_reason: finish, message: { role: 'assistant', content: reply.kind === 'text' ? reply.text : null, ...(call ? { tool_calls: [call] } : {}) } }] })
  }
  const chunk = (delta: unknown, finishReason: string | null) => ({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] })
  const events: { data: unknown }[] = [{ data: chunk({ role: 'assistant', content: '' }, null) }]
  if (reply.kind === 'text') events.push({ data: chunk({ content: reply.text }, null) })
  else events.push({ data: chunk({ tool_calls: [{ index: 0, ...call }] }, null) })
  events.push({ data: chunk({}, finish) })
  events.push({ data: { id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageBody } })
  events.push({ data: '[DONE]' })
  sse(res, events)
}
