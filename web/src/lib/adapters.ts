// Adapters by the product people know them as (the contract's names), and the settings each takes.
import { ADAPTER_CONFIG_KEYS, ADAPTER_PRODUCTS, type AdapterConfig, type AdapterName } from '#src/contract/adapter-config.ts'

export const ADAPTER_NAMES = (Object.entries(ADAPTER_PRODUCTS) as [AdapterName, string][]).map(([value, label]) => ({ value, label }))

export const adapterLabel = (adapter: string | null | undefined) =>
  (adapter && ADAPTER_PRODUCTS[adapter as AdapterName]) || adapter || 'No adapter'

/** The adapter settings a form edits, as text. */
export interface AdapterSettingsText {
  model: string
  command: string
  args: string
  env: string
  max_turns: string
  url: string
  timeout_seconds: string
  secret_env: string
  /** adapter_config.fallback's models in order (a fallback runs on the agent's own CLI). */
  fallback: string[]
}

/** At most this many fallback models (the contract's limit). */
export const MAX_FALLBACKS = 5

export const settingsText = (config: AdapterConfig | null | undefined): AdapterSettingsText => ({
  model: config?.model ?? '',
  command: config?.command ?? '',
  args: (config?.args ?? []).join('\n'),
  env: (config?.env ?? []).join(', '),
  max_turns: config?.max_turns?.toString() ?? '',
  url: config?.url ?? '',
  timeout_seconds: config?.timeout_seconds?.toString() ?? '',
  secret_env: config?.secret_env ?? '',
  fallback: (config?.fallback ?? []).map((f) => f.model),
})

export const settingsOf = (adapter: string): readonly (keyof AdapterConfig)[] => ADAPTER_CONFIG_KEYS[adapter as AdapterName] ?? []

/** The adapter_config to send: only the keys this adapter takes, blanks left out. */
export function configFromText(adapter: string, text: AdapterSettingsText): AdapterConfig {
  const config: AdapterConfig = {}
  const takes = new Set(settingsOf(adapter))
  const whole = (value: string, field: string) => {
    const n = Number(value)
    if (!Number.isInteger(n) || n < 1) throw new Error(`${field}: enter a whole number of at least 1.`)
    return n
  }
  if (takes.has('model') && text.model.trim()) config.model = text.model.trim()
  if (takes.has('command') && text.command.trim()) config.command = text.command.trim()
  if (takes.has('args') && text.args.trim()) config.args = text.args.split('\n').map((a) => a.trim()).filter(Boolean)
  if (takes.has('env') && text.env.trim()) config.env = text.env.split(/[\s,]+/).filter(Boolean)
  if (takes.has('max_turns') && text.max_turns.trim()) config.max_turns = whole(text.max_turns.trim(), 'Max turns')
  if (takes.has('url') && text.url.trim()) config.url = text.url.trim()
  if (takes.has('timeout_seconds') && text.timeout_seconds.trim()) config.timeout_seconds = whole(text.timeout_seconds.trim(), 'Timeout')
  if (takes.has('secret_env') && text.secret_env.trim()) config.secret_env = text.secret_env.trim()
  const fallback = takes.has('fallback') ? text.fallback.map((m) => m.trim()).filter(Boolean) : []
  if (fallback.length) config.fallback = fallback.map((model) => ({ model }))
  return config
}
