// `shopfloor events`: follows the company's live stream and prints each event, reconnecting
// with the spec's backoff until interrupted (Ctrl-C) or the stream is refused.
import type { LiveEvent } from '../../../client/index.ts'
import { type CommandSpec, integer } from '../cli.ts'
import { describeError } from '../errors.ts'

function line(event: LiveEvent): string {
  const { type, id, ...extra } = event
  const rest = Object.entries(extra).map(([k, v]) => `${k}=${v}`)
  return [new Date().toISOString().slice(11, 19), type, id ?? '-', ...rest].join('  ')
}

export const events: CommandSpec = {
  name: 'events',
  summary: 'Follow the live event stream (one line per event; one JSON object per line with --json)',
  options: [{ name: 'count', value: 'N', help: 'stop after N events' }],
  notes: 'Reconnects after 2, 4, 8, 16, then every 30 seconds; stops on Ctrl-C.',
  async run(cli, { options }) {
    const companyId = await cli.companyId()
    const limit = integer(options, 'count')
    const stop = new AbortController()
    const interrupt = () => stop.abort()
    process.once('SIGINT', interrupt)
    process.once('SIGTERM', interrupt)
    let seen = 0
    try {
      await cli.client.events(companyId, {
        signal: stop.signal,
        onConnected: () => cli.warn(`connected to ${cli.url}`),
        onDisconnected: ({ error, retryInMs }) =>
          cli.warn(`disconnected${error ? ` (${describeError(error)})` : ''}; reconnecting in ${retryInMs / 1000}s`),
        onEvent: (event) => {
          cli.emit(cli.json ? JSON.stringify(event) : line(event))
          if (limit !== undefined && ++seen >= limit) stop.abort()
        },
      })
    } finally {
      process.off('SIGINT', interrupt)
      process.off('SIGTERM', interrupt)
    }
  },
}
