// Webhook subscriptions (owners and admins): signed POSTs of the company's events to a URL, and
// the log of their deliveries (docs/webhooks.md).
import type { Webhook, WebhookPatch } from '../../../client/index.ts'
import type { OptionValues } from '../args.ts'
import { type GroupSpec, integer, list, nullable, onOff, text } from '../cli.ts'
import { UsageError } from '../errors.ts'
import { details, shortId, table, time } from '../format.ts'

const WEBHOOK_NOTE = 'WEBHOOK is the subscription\'s URL, its id or the first characters of its id, as `webhooks list` shows them.'
const EVENTS_HELP = 'event to send: *, <entity>.* or a type such as task.created (repeatable or comma-separated)'

function state(w: Webhook): string {
  return w.enabled ? 'on' : w.disabled_reason ? `off (${w.disabled_reason})` : 'off'
}

export const webhooks: GroupSpec = {
  name: 'webhooks',
  summary: 'Webhooks: subscriptions to the company\'s events, and their deliveries',
  commands: [
    {
      name: 'list',
      summary: 'List subscriptions, oldest first',
      async run(cli) {
        const rows = await cli.client.webhooks.list(await cli.companyId())
        await cli.print(rows, () =>
          table(rows, [
            { header: 'webhook', value: (w) => shortId(w.id) },
            { header: 'url', value: (w) => w.url },
            { header: 'events', value: (w) => w.events.join(',') },
            { header: 'enabled', value: state },
            { header: 'description', value: (w) => w.description },
          ]),
        )
      },
    },
    {
      name: 'create',
      summary: 'Subscribe a URL; prints the signing secret, shown this once',
      args: ['<url>'],
      options: [
        { name: 'event', value: 'EVENT', help: `${EVENTS_HELP}; default *`, repeat: true },
        { name: 'description', value: 'TEXT', help: 'what it is for' },
        { name: 'disabled', help: 'create it switched off' },
      ],
      async run(cli, { args, options }) {
        const created = await cli.client.webhooks.create(await cli.companyId(), {
          url: args.url!,
          events: list(options, 'event'),
          description: text(options, 'description'),
          enabled: options.disabled === true ? false : undefined,
        })
        await cli.print(created, () =>
          [
            `Created webhook ${shortId(created.id)} for ${created.url} (${created.events.join(', ')})`,
            `Signing secret (shown this once; verify the webhook-signature header with it): ${created.secret}`,
          ].join('\n'),
        )
      },
    },
    {
      name: 'show',
      summary: 'Show a subscription',
      args: ['<webhook>'],
      notes: WEBHOOK_NOTE,
      async run(cli, { args }) {
        const w = await cli.findWebhook(args.webhook!)
        await cli.print(w, () =>
          details([
            ['URL', w.url],
            ['Id', w.id],
            ['Events', w.events.join(', ')],
            ['Enabled', state(w)],
            ['Description', w.description],
            ['Created', time(w.created_at)],
          ]),
        )
      },
    },
    {
      name: 'update',
      summary: 'Change a subscription, or switch it on or off',
      args: ['<webhook>'],
      notes: WEBHOOK_NOTE,
      options: [
        // Not --url, which every command takes as the server's address.
        { name: 'endpoint', value: 'URL', help: 'new address of the subscription' },
        { name: 'event', value: 'EVENT', help: `${EVENTS_HELP}; replaces the list`, repeat: true },
        { name: 'description', value: 'TEXT', help: 'description, or none' },
        { name: 'enabled', value: 'on|off', help: 'switch it on (clears a disabled reason) or off' },
      ],
      async run(cli, { args, options }) {
        const body = patch(options)
        if (Object.values(body).every((v) => v === undefined)) throw new UsageError('Nothing to change: give at least one option')
        const found = await cli.findWebhook(args.webhook!)
        const w = await cli.client.webhooks.update(await cli.companyId(), found.id, body)
        await cli.print(w, () => `Updated webhook ${shortId(w.id)} for ${w.url} (${state(w)})`)
      },
    },
    {
      name: 'delete',
      summary: 'Delete a subscription and its deliveries',
      args: ['<webhook>'],
      notes: WEBHOOK_NOTE,
      confirm: (a) => `Delete webhook ${a.webhook} and its deliveries?`,
      async run(cli, { args }) {
        const w = await cli.findWebhook(args.webhook!)
        await cli.client.webhooks.delete(await cli.companyId(), w.id)
        await cli.print({ deleted: w.id }, () => `Deleted webhook ${shortId(w.id)} for ${w.url}`)
      },
    },
    {
      name: 'deliveries',
      summary: 'The deliveries of a subscription, newest first',
      args: ['<webhook>'],
      notes: WEBHOOK_NOTE,
      options: [{ name: 'limit', value: 'N', help: 'at most N deliveries (1 to 200, default 50)' }],
      async run(cli, { args, options }) {
        const w = await cli.findWebhook(args.webhook!)
        const rows = await cli.client.webhooks.deliveries(await cli.companyId(), w.id, { limit: integer(options, 'limit') })
        await cli.print(rows, () =>
          table(rows, [
            { header: 'delivery', value: (d) => shortId(d.id) },
            { header: 'event', value: (d) => d.type },
            { header: 'status', value: (d) => d.status },
            { header: 'attempts', value: (d) => d.attempts, right: true },
            { header: 'last', value: (d) => (d.last_status_code ?? d.last_error ?? null) },
            { header: 'created', value: (d) => time(d.created_at) },
            { header: 'next attempt', value: (d) => time(d.next_attempt_at) },
          ]),
        )
      },
    },
    {
      name: 'retry',
      summary: 'Send a delivery again (pending again, with a new 24-hour window)',
      args: ['<webhook>', '<delivery>'],
      notes: `${WEBHOOK_NOTE} DELIVERY is a delivery id or its first characters, among the 200 newest.`,
      async run(cli, { args }) {
        const w = await cli.findWebhook(args.webhook!)
        const delivery = await cli.findDelivery(w.id, args.delivery!)
        const d = await cli.client.webhooks.retry(await cli.companyId(), w.id, delivery.id)
        await cli.print(d, () => `Delivery ${shortId(d.id)} (${d.type}) is ${d.status} again`)
      },
    },
  ],
}

function patch(options: OptionValues): WebhookPatch {
  return {
    url: text(options, 'endpoint'),
    events: list(options, 'event'),
    description: nullable(options, 'description'),
    enabled: onOff(options, 'enabled'),
  }
}
