// http: an agent behind an HTTP endpoint (adapter_config.url). The runner POSTs the run context
// and the prompt as JSON, with `Authorization: Bearer <secret>` when adapter_config.secret_env
// names a variable of the runner's environment, and reads the answer by its content type:
//   text/event-stream        server-sent events, each `data:` one JSON event
//   application/x-ndjson     (or application/jsonl) one JSON event per line
//   application/json         one JSON reply
// Events: {type: "text", text} | {type: "tool", name, input, output, is_error} |
// {type: "system", text} | {type: "usage", ...usage} | {type: "result", reply, session_id,
// ...usage} | {type: "error", message}. Usage fields (running totals): tokens_in, tokens_out,
// cache_read_tokens, cache_write_tokens (among tokens_in), cost_cents or cost_usd, model.
// One JSON reply: {reply, session_id, usage: {...}, error}.
//
// The URL is a member's choice, so the runner's machine must not become a way in to what is next
// to it: the connection is refused when it would go to a loopback, private or link-local address
// (checked on the connection made, server/outbound.ts) unless the operator allowed the URL with
// --allow-http-agent-url, and a redirect is never followed (it fails the run).
import { outboundFetch, type OutboundGuard, refusedBecause, urlAllowed } from '../../server/outbound.ts'
import type { Adapter, AdapterInput, AdapterResult } from './adapter.ts'
import { refusedForAgent } from '../environment.ts'
import { failureMessage } from './cli/errors.ts'
import { toolCall, toolEntry } from './cli/tool-line.ts'
import { UsageMeter } from './cli/usage.ts'

const PRODUCT = 'HTTP agent'
export const HTTP_DEFAULT_TIMEOUT_SECONDS = 600

const GUARD: OutboundGuard = { hint: 'the runner\'s operator may allow the URL with --allow-http-agent-url' }

/**
 * `allowAgentEnv`: the runner's --allow-agent-env, what an agent's secret_env may name;
 * `allowUrls`: its --allow-http-agent-url patterns, URLs that may be loopback or private.
 */
export function httpAdapter(runnerEnv: NodeJS.ProcessEnv, allowAgentEnv: readonly string[], allowUrls: readonly string[] = []): Adapter {
  return { name: 'http', run: (input) => runHttp(input, runnerEnv, allowAgentEnv, allowUrls) }
}

async function runHttp(input: AdapterInput, runnerEnv: NodeJS.ProcessEnv, allowAgentEnv: readonly string[], allowUrls: readonly string[]): Promise<AdapterResult> {
  const { config, context } = input
  if (!config.url) return { ok: false, reply: '', error: `${PRODUCT}: the agent has no adapter_config.url` }
  if (!/^https?:\/\//i.test(config.url)) return { ok: false, reply: '', error: `${PRODUCT}: adapter_config.url must start http:// or https://` }
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'text/event-stream, application/x-ndjson, application/json',
  }
  if (config.secret_env) {
    const refused = refusedForAgent(config.secret_env, allowAgentEnv)
    if (refused) return { ok: false, reply: '', error: `${PRODUCT}: secret_env refused: ${refused}` }
    const secret = runnerEnv[config.secret_env]
    if (!secret) return { ok: false, reply: '', error: `${PRODUCT}: credentials missing: ${config.secret_env} is not set in the runner's environment` }
    headers.authorization = `Bearer ${secret}`
  }
  const timeoutSeconds = config.timeout_seconds ?? HTTP_DEFAULT_TIMEOUT_SECONDS
  const timeout = AbortSignal.timeout(timeoutSeconds * 1000)
  const signal = AbortSignal.any([input.signal, timeout])
  const state = new HttpRun(input)
  input.transcript('system', `POST ${config.url}\n`)

  try {
    const response = await outboundFetch(config.url, {
      method: 'POST',
      headers,
      signal,
      body: JSON.stringify({
        run_id: context.run.id,
        // Where and how the agent calls back: the API and the run's own credential.
        api_url: input.env.SHOPFLOOR_API_URL,
        api_key: input.env.SHOPFLOOR_API_KEY,
        prompt: input.prompt,
        session_id: input.resumeSession,
        model: config.model ?? null,
        context,
      }),
    }, urlAllowed(config.url, allowUrls) ? null : GUARD)
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => {})
      const to = response.headers.get('location')
      return state.finish(`${PRODUCT}: ${config.url} answered HTTP ${response.status}${to ? ` redirecting to ${to.slice(0, 300)}` : ''}; the http adapter follows no redirect (set the agent's url to the final address)`)
    }
    if (!response.ok) {
      const body = (await response.text().catch(() => '')).slice(0, 1000)
      const credentials = config.secret_env ? [config.secret_env] : []
      return { ok: false, reply: '', error: failureMessage(PRODUCT, `HTTP ${response.status} ${response.statusText}${body ? `: ${body}` : ''}`, credentials) }
    }
    const type = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase()
    if (type === 'text/event-stream') await readLines(response, (line) => line.startsWith('data:') && state.event(line.slice(5).trim()))
    else if (type === 'application/x-ndjson' || type === 'application/jsonl' || type === 'application/json-seq') await readLines(response, (line) => state.event(line))
    else state.reply(await response.text())
  } catch (err: any) {
    if (timeout.aborted) return state.finish(`${PRODUCT}: no answer within ${timeoutSeconds} seconds (timeout_seconds)`)
    if (input.signal.aborted) return state.finish(`${PRODUCT} was stopped`)
    const refused = refusedBecause(err)
    if (refused) return state.finish(`${PRODUCT}: refused to connect: ${refused.message}`)
    return state.finish(`${PRODUCT}: could not reach ${config.url}: ${err.cause?.message ?? err.message}`)
  }
  return state.finish(null)
}

/** Reads a streamed body line by line. */
async function readLines(response: { body: unknown }, onLine: (line: string) => unknown): Promise<void> {
  const decoder = new TextDecoder()
  let pending = ''
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    pending += decoder.decode(chunk, { stream: true })
    let newline: number
    while ((newline = pending.indexOf('\n')) >= 0) {
      onLine(pending.slice(0, newline).replace(/\r$/, ''))
      pending = pending.slice(newline + 1)
    }
  }
  if (pending.trim()) onLine(pending)
}

class HttpRun {
  private readonly meter = new UsageMeter()
  private finalReply = ''
  private finished = false
  private error: string | null = null

  constructor(private readonly input: AdapterInput) {}

  event(data: string): void {
    if (!data.trim() || data === '[DONE]') return
    let e: any
    try {
      e = JSON.parse(data)
    } catch {
      this.input.transcript('system', `Not a JSON event: ${data.slice(0, 500)}\n`)
      return
    }
    switch (e?.type) {
      case 'text':
        if (typeof e.text === 'string') this.input.transcript('agent', e.text)
        break
      case 'tool':
        this.input.transcript('tool', toolEntry(toolCall(String(e.name ?? 'tool'), e.input), e.output, e.is_error === true))
        break
      case 'system':
        if (typeof e.text === 'string') this.input.transcript('system', `${e.text}\n`)
        break
      case 'usage':
        this.usage(e)
        break
      case 'result':
        this.usage(e)
        this.reply(e)
        break
      case 'error':
        this.error = String(e.message ?? 'error')
        break
    }
  }

  /** The final reply: a result event, or the one JSON answer (or plain text). */
  reply(answer: string | Record<string, any>): void {
    let body: any = answer
    if (typeof answer === 'string') {
      try {
        body = JSON.parse(answer)
      } catch {
        body = { reply: answer }
      }
    }
    this.finished = true
    if (typeof body?.session_id === 'string') this.input.session(body.session_id)
    if (body?.usage) this.usage(body.usage)
    if (body?.error) this.error = String(body.error?.message ?? body.error)
    this.finalReply = typeof body?.reply === 'string' ? body.reply : ''
  }

  private usage(u: any): void {
    const n = (v: unknown) => (typeof v === 'number' && v >= 0 ? v : 0)
    if (!['tokens_in', 'tokens_out', 'cost_cents', 'cost_usd'].some((k) => k in u)) return
    const cacheRead = n(u.cache_read_tokens)
    const cacheWrite = n(u.cache_write_tokens)
    this.meter.record('total', typeof u.model === 'string' ? u.model : (this.input.config.model ?? null), {
      input: n(u.tokens_in) - cacheRead - cacheWrite, cacheRead, cacheWrite, output: n(u.tokens_out),
    })
    if ('cost_usd' in u) this.meter.reportCost(n(u.cost_usd))
    else if ('cost_cents' in u) this.meter.reportCost(n(u.cost_cents) / 100)
    this.input.usage(this.meter.totals())
  }

  finish(failure: string | null): AdapterResult {
    this.input.usage(this.meter.totals())
    this.input.transcript('system', `\n${this.meter.line()}\n`)
    if (failure) return { ok: false, reply: this.finalReply, error: failure }
    if (this.error) return { ok: false, reply: this.finalReply, error: failureMessage(PRODUCT, this.error, this.input.config.secret_env ? [this.input.config.secret_env] : []) }
    if (!this.finished) return { ok: false, reply: '', error: `${PRODUCT}: the answer ended without a result` }
    return { ok: true, reply: this.finalReply.trim(), error: null }
  }
}
