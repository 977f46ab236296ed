import type { AppContext } from '../../server/context.ts'
import { type OutboundGuard, targetProblem } from '../../server/outbound.ts'

// Webhook targets must be public (server/outbound.ts): checked when a subscription is saved, and
// on the connection of every attempt. WEBHOOKS_ALLOW_PRIVATE=true lifts the rule (a private
// deployment, tests).

const guards = new WeakMap<AppContext, OutboundGuard>()

/** The check of this server's webhook connections, or null when private targets are allowed. */
export function webhookGuard(ctx: AppContext): OutboundGuard | null {
  if (ctx.config.webhooksAllowPrivate) return null
  let guard = guards.get(ctx)
  if (!guard || guard.resolve !== ctx.resolve) {
    guard = { hint: 'set WEBHOOKS_ALLOW_PRIVATE=true to allow it', resolve: ctx.resolve }
    guards.set(ctx, guard)
  }
  return guard
}

/** Null when the URL may receive webhooks, else the reason it may not. */
export function webhookTargetProblem(ctx: AppContext, url: string): Promise<string | null> {
  return targetProblem(url, webhookGuard(ctx))
}
