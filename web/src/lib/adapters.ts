// Adapters by the product people know them as.
export const ADAPTER_NAMES: { value: string; label: string }[] = [
  { value: 'agent_cli_1', label: 'Claude Code' },
  { value: 'agent_cli_2', label: 'Codex' },
  { value: 'agent_cli_3', label: 'Gemini CLI' },
  { value: 'agent_cli_4', label: 'OpenCode' },
  { value: 'agent_cli_5', label: 'Cursor' },
  { value: 'http', label: 'HTTP endpoint' },
  { value: 'process', label: 'Process (any command)' },
  { value: 'simulated', label: 'Simulated (for trying things out)' },
]

export const adapterLabel = (adapter: string | null | undefined) =>
  ADAPTER_NAMES.find((a) => a.value === adapter)?.label ?? adapter ?? 'No adapter'
