import type { Adapter } from './adapter.ts'

/** agent_cli_3..5 and http: accepted by the API, not implemented by this runner. */
export function unimplementedAdapter(name: string): Adapter {
  return {
    name,
    async run() {
      return { ok: false, reply: '', error: `adapter "${name}" is not implemented by this runner` }
    },
  }
}
