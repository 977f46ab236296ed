// The scheduler: fires routines on their cron, wakes agents on their own heartbeat_cron and
// fails stale runs. It runs inside every API process (unless SCHEDULER=off) or on its own
// (`shopfloor scheduler`); any number of instances may share one database, because every slot
// is decided by a guarded statement (fire.ts), never by which instance happens to be awake.
//
// Definitions (routines and agents' crons) are read from the database every 5 minutes and
// 1 second after any routine.* or agent.* event. The scheduler hears every company's events,
// those of companies made after it started included, through one subscription to all of them.
// With the in-process bus a separate scheduler process sees no events of the API process and
// relies on the periodic refresh; with EVENTS_BACKEND=redis it sees them all.
import type { Logger } from 'pino'
import { expireStaleRuns } from '../domain/runs/expire.ts'
import { webhookOutbox } from '../domain/webhooks/outbox.ts'
import { installOutbox } from '../server/db/write.ts'
import { trimAllTranscripts } from '../domain/runs/retention.ts'
import { pruneDeliveries } from '../domain/webhooks/prune.ts'
import { foldCounterSlots } from '../domain/insights/fold-slots.ts'
import type { AppContext } from '../server/context.ts'
import { schedulerSlots } from '../server/metrics.ts'
import { parseSchedule, type Schedule } from './cron.ts'
import { type Definition, definitionKey, loadDefinitions } from './definitions.ts'
import { fireHeartbeat, fireRoutine, type Slot } from './fire.ts'

export interface SchedulerOptions {
  /** Full re-read of the definitions (SPEC.md: 5 minutes). */
  refreshMs?: number
  /** Delay between a routine.* / agent.* event and the re-read it causes (SPEC.md: 1 second). */
  eventRefreshDelayMs?: number
  /** Stale-run sweep interval; default STALE_SWEEP_SECONDS (60). */
  staleSweepMs?: number
  /** How often retention runs: old transcripts and the old delivery log (default 10 minutes). */
  retentionMs?: number
}

export interface Scheduler {
  /** Settles once the definitions have been read the first time (after the migrations). */
  ready: Promise<void>
  /**
   * Fires every slot due at `now` (default: the current time) at once, as the slot timer does,
   * after any refresh or firing already under way. Tests pass a time ahead of the clock instead
   * of waiting for a slot.
   */
  tick(now?: Date): Promise<void>
  stop(): Promise<void>
}

interface Entry {
  def: Definition
  schedule: Schedule
  next: Date | null
}

/** Longest sleep between checks, so a wall-clock jump is noticed within a minute. */
const MAX_SLEEP_MS = 60_000

export async function startScheduler(ctx: AppContext, options: SchedulerOptions = {}): Promise<Scheduler> {
  // The tasks and runs it makes reach webhook subscribers like any other write (also when it runs as its own process).
  installOutbox(webhookOutbox)
  const refreshMs = options.refreshMs ?? 5 * 60_000
  const eventRefreshDelayMs = options.eventRefreshDelayMs ?? 1_000
  const staleSweepMs = options.staleSweepMs ?? ctx.config.staleSweepSeconds * 1000
  const retentionMs = options.retentionMs ?? 10 * 60_000
  const log: Logger = ctx.log.child({ component: 'scheduler' })
  // A routine or heartbeat fires at most once per MIN_SCHEDULE_SECONDS, whatever its cron says:
  // `* * * * * *` made 7 tasks in 8 s.
  const minGapMs = ctx.config.minScheduleSeconds * 1000

  const entries = new Map<string, Entry>()
  /** Cron texts already reported as invalid, so each is logged once, not on every refresh. */
  const reportedInvalid = new Map<string, string>()
  let unsubscribe: (() => void) | undefined
  let stopped = false
  let slotTimer: NodeJS.Timeout | undefined
  let eventTimer: NodeJS.Timeout | undefined

  // Refreshes and firings run one after another, so a refresh never swaps the entries while a
  // firing walks them.
  let chain: Promise<void> = Promise.resolve()
  const serial = (label: string, fn: () => Promise<void>) =>
    (chain = chain.then(fn).catch((err) => log.error({ err }, `scheduler ${label} failed`)))

  async function refresh(): Promise<void> {
    const defs = await loadDefinitions(ctx.db)
    const now = new Date()
    const seen = new Set<string>()
    for (const def of defs) {
      const key = definitionKey(def)
      seen.add(key)
      const current = entries.get(key)
      if (current && current.def.cron === def.cron) continue
      try {
        const schedule = parseSchedule(def.cron)
        entries.set(key, { def, schedule, next: schedule.nextSlot(now) })
        reportedInvalid.delete(key)
      } catch (err: any) {
        entries.delete(key)
        if (reportedInvalid.get(key) !== def.cron) {
          reportedInvalid.set(key, def.cron)
          log.warn({ kind: def.kind, id: def.id, company_id: def.companyId, cron: def.cron, reason: err.message },
            'invalid cron expression; skipped')
        }
      }
    }
    for (const key of entries.keys()) if (!seen.has(key)) entries.delete(key)
    for (const key of reportedInvalid.keys()) if (!seen.has(key)) reportedInvalid.delete(key)
    armSlotTimer()
  }

  async function fireDue(now: Date): Promise<void> {
    for (const entry of entries.values()) {
      if (stopped) return
      if (!entry.next || entry.next > now) continue
      const at = entry.next
      // Slots missed while the process was not running (or was suspended) are not caught up, nor
      // slots closer than the minimum to this one.
      entry.next = entry.schedule.nextSlot(new Date(Math.max(now.getTime(), at.getTime() + minGapMs - 1)))
      // The guard of fire.ts keeps the minimum across instances: an earlier firing within it makes this slot a duplicate.
      const slot: Slot = { at, windowMs: Math.max(entry.schedule.duplicateWindowMs(at), minGapMs - 1) }
      try {
        const result = entry.def.kind === 'routine'
          ? ((await fireRoutine(ctx, entry.def, slot)) ? 'fired' : 'skipped')
          : await fireHeartbeat(ctx, entry.def, slot)
        schedulerSlots.inc({ kind: entry.def.kind, result })
        const fields = { kind: entry.def.kind, id: entry.def.id, company_id: entry.def.companyId, slot: at.toISOString() }
        if (result === 'fired') log.info(fields, 'scheduled slot fired')
        if (result === 'idle') log.info(fields, 'heartbeat skipped: the agent has nothing to do (heartbeat_skip_idle)')
      } catch (err) {
        log.error({ err, kind: entry.def.kind, id: entry.def.id, slot: at.toISOString() }, 'scheduled slot failed')
      }
    }
  }

  function armSlotTimer(): void {
    clearTimeout(slotTimer)
    if (stopped) return
    let earliest = Infinity
    for (const entry of entries.values()) if (entry.next) earliest = Math.min(earliest, entry.next.getTime())
    const delay = Math.max(0, Math.min(earliest - Date.now(), MAX_SLEEP_MS))
    slotTimer = setTimeout(() => void tick(), delay)
    slotTimer.unref()
  }

  function tick(now = new Date()): Promise<void> {
    return serial('firing', () => fireDue(now)).then(armSlotTimer)
  }

  function onEvent(event: { type: string }): void {
    if (!event.type.startsWith('routine.') && !event.type.startsWith('agent.')) return
    if (eventTimer || stopped) return // one re-read covers every event of the next second
    eventTimer = setTimeout(() => {
      eventTimer = undefined
      void serial('refresh', refresh)
    }, eventRefreshDelayMs)
    eventTimer.unref()
  }

  let sweeping = false
  async function sweep(): Promise<void> {
    if (sweeping) return // a slow sweep is not stacked on itself
    sweeping = true
    try {
      const expired = await expireStaleRuns(ctx, null)
      if (expired.length) log.info({ expired }, 'stale runs expired')
    } catch (err) {
      log.error({ err }, 'stale-run sweep failed')
    } finally {
      sweeping = false
    }
  }

  // Retention: transcripts past TRANSCRIPT_RETENTION_DAYS (runs/retention.ts) and the webhook
  // delivery log past 30 days (webhooks/prune.ts), in small batches, one pass at a time; and
  // past days' counter slots folded into one row (insights/fold-slots.ts).
  let trimming = false
  async function trim(): Promise<void> {
    if (trimming) return
    trimming = true
    try {
      const days = ctx.config.transcriptRetentionDays
      const trimmed = days === null ? 0 : await trimAllTranscripts(ctx.db, days, () => stopped)
      if (trimmed) log.info({ trimmed, days }, 'transcripts trimmed')
      const pruned = await pruneDeliveries(ctx.db, () => stopped)
      if (pruned) log.info({ pruned }, 'old webhook deliveries removed')
      const folded = await foldCounterSlots(ctx.db, () => stopped)
      if (folded) log.debug({ folded }, "past days' counter slots folded")
    } catch (err) {
      log.error({ err }, 'transcript retention failed')
    } finally {
      trimming = false
    }
  }

  // In the API process the scheduler starts while migrations may still be running.
  const ready = serial('start', async () => {
    while (ctx.dbState === 'starting' && !stopped) await new Promise((r) => setTimeout(r, 500))
    if (stopped) return
    if (ctx.dbState === 'failed') return log.error('database not initialised; the scheduler stays idle')
    // Subscribed before the first read, so a change made during the read causes another.
    unsubscribe = ctx.bus.subscribeAll((_companyId, event) => onEvent(event))
    await refresh()
    void trim()
  })
  // Periodic work waits for the database too (a sweep before the migrations would only fail).
  const whenReady = (fn: () => void) => () => {
    if (ctx.dbState === 'ready') fn()
  }
  const intervals = [
    setInterval(whenReady(() => void serial('refresh', refresh)), refreshMs),
    setInterval(whenReady(() => void sweep()), staleSweepMs),
    setInterval(whenReady(() => void trim()), retentionMs),
  ]
  for (const timer of intervals) timer.unref()
  log.info('scheduler started')

  return {
    ready,
    tick,
    async stop() {
      stopped = true
      for (const timer of intervals) clearInterval(timer)
      clearTimeout(slotTimer)
      clearTimeout(eventTimer)
      unsubscribe?.()
      await chain
      while (sweeping || trimming) await new Promise((r) => setTimeout(r, 10))
    },
  }
}
