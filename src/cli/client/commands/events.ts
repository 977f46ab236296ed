// `shopfloor events`: follows the company's live stream and prints each event, reconnecting
// with the spec's backoff until interrupted (Ctrl-C) or the stream is refused.
import type { LiveEvent } from '../../../client/index.ts'
import { type Cli, type CommandSpec, integer } from '../cli.ts'
import { describeError, UsageError } from '../errors.ts'
import { shortId } from '../format.ts'

/**
 * Names for the ids events carry, as other commands show them: an agent's name, a task's key, a
 * run's short id. Looked up once per id (an event says only what changed), except an agent's
 * name after `agent.updated`, which may be a rename. A record that cannot be read (a deleted
 * task) keeps its id.
 */
function namer(cli: Cli, companyId: string) {
  const known = new Map<string, Promise<string>>()
  const lookup = (id: string, read: () => Promise<string>) => {
    if (!known.has(id)) known.set(id, read().catch(() => id))
    return known.get(id)!
  }
  const agent = (id: string) => lookup(id, async () => (await cli.client.agents.get(companyId, id)).name)
  const task = (id: string) => lookup(id, async () => (await cli.client.tasks.get(companyId, id)).key)
  return async (event: LiveEvent, at: Date): Promise<string> => {
    const { type, id, agent_id, ...extra } = event
    const entity = type.split('.')[0]
    if (type === 'agent.updated' && id) known.delete(id)
    let subject = id ?? '-'
    if (id && entity === 'agent') subject = await agent(id)
    else if (id && entity === 'task') subject = await task(id)
    else if (id && entity === 'run') subject = shortId(id)
    const rest = [
      ...(agent_id ? [`agent=${await agent(agent_id)}`] : []),
      ...Object.entries(extra).map(([k, v]) => `${k}=${v}`),
    ]
    return [at.toISOString().slice(11, 19), type, subject, ...rest].join('  ')
  }
}

export const events: CommandSpec = {
  name: 'events',
  summary: 'Follow the live event stream (one line per event; one JSON object per line with --json)',
  options: [{ name: 'count', value: 'N', help: 'stop after N events (1 or more)' }],
  notes: 'Agents are shown by name, tasks by key, runs by the start of their id (as "runs list" shows them).\n' +
    'Reconnects after 2, 4, 8, 16, then every 30 seconds; stops on Ctrl-C.',
  async run(cli, { options }) {
    const limit = integer(options, 'count')
    // 0 would connect only to stop at once; a negative count means nothing.
    if (limit !== undefined && limit < 1) throw new UsageError('--count must be 1 or more (leave it out to follow until Ctrl-C)')
    const companyId = await cli.companyId()
    const describe = namer(cli, companyId)
    const stop = new AbortController()
    const interrupt = () => stop.abort()
    process.once('SIGINT', interrupt)
    process.once('SIGTERM', interrupt)
    let seen = 0
    // Names are looked up while later events arrive: lines are written in arrival order.
    let printed = Promise.resolve()
    try {
      await cli.client.events(companyId, {
        signal: stop.signal,
        onConnected: () => cli.warn(`connected to ${cli.url}`),
        onDisconnected: ({ error, retryInMs }) =>
          cli.warn(`disconnected${error ? ` (${describeError(error)})` : ''}; reconnecting in ${retryInMs / 1000}s`),
        onEvent: (event) => {
          if (limit !== undefined && seen >= limit) return
          const at = new Date()
          printed = printed.then(() => cli.emit(event, () => describe(event, at)))
          if (limit !== undefined && ++seen >= limit) stop.abort()
        },
      })
      await printed
    } finally {
      process.off('SIGINT', interrupt)
      process.off('SIGTERM', interrupt)
    }
  },
}
