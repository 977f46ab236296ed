import type { Adapter } from './adapter.ts'

/** Fixed usage of every simulated run (SPEC.md). */
export const SIMULATED_USAGE = { tokens_in: 100, tokens_out: 50, cost_cents: 1 } as const

/** Does no work: records a transcript line and the fixed usage, and succeeds. */
export const simulatedAdapter: Adapter = {
  name: 'simulated',
  async run({ context, transcript, usage }) {
    const subject = context.task ? `${context.task.key} "${context.task.title}"` : 'no task'
    transcript('agent', `Simulated run of ${context.agent.name} on ${subject}.`)
    usage({ ...SIMULATED_USAGE })
    return { ok: true, reply: `Simulated work done on ${subject}.`, error: null }
  },
}
