// Prometheus metrics of this process (prom-client), served by GET /metrics (http/metrics.ts).
// Counters and histograms live here, one set per process, and are fed where things happen;
// gauges that describe the database (runs queued, oldest queued run) are read at scrape time.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { SERVICE_VERSION } from '../contract/version.ts'

export const registry = new Registry()
// The event-loop delay histogram samples with a timer; prom-client's default of every 10 ms
// woke an idle server 100 times a second, half its idle CPU (docs/benchmarks.md, workload 9).
// Every 100 ms still gives 150 samples per 15-second scrape.
collectDefaultMetrics({ register: registry, prefix: 'shopfloor_', eventLoopMonitoringPrecision: 100 })
// prom-client reports the sums of its active handles, requests and resources as gauges named
// `*_total`, a suffix Prometheus keeps for counters (`promtool check metrics` rejects them). The
// gauges by type (`shopfloor_nodejs_active_handles{type}` ...) stay; sum() gives the totals.
for (const kind of ['handles', 'requests', 'resources']) registry.removeSingleMetric(`shopfloor_nodejs_active_${kind}_total`)

/** Always 1; its labels say what runs (the usual `*_build_info` of Prometheus exporters). */
export const buildInfo = new Gauge({
  name: 'shopfloor_build_info',
  help: 'Version of Shopfloor and of Node.js this process runs (always 1)',
  labelNames: ['version', 'node_version'] as const,
  registers: [registry],
})
buildInfo.set({ version: SERVICE_VERSION, node_version: process.version }, 1)

/**
 * A labelled counter has no series until its first increment, so an expression over a label
 * value never seen (`rate(x{outcome="delivered"}[15m]) == 0`) has no answer and its alert never
 * fires. Each counter's known label values start at 0.
 */
function startAtZero<L extends string>(counter: Counter<L>, ...combinations: Partial<Record<L, string>>[]): void {
  for (const labels of combinations) counter.inc(labels, 0)
}

export const httpRequests = new Counter({
  name: 'shopfloor_http_requests_total',
  help: 'HTTP requests answered, by method, route template and status code',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
})

export const httpDuration = new Histogram({
  name: 'shopfloor_http_request_duration_seconds',
  help: 'Time to answer HTTP requests, by method and route template',
  labelNames: ['method', 'route'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
})

export const claims = new Counter({
  name: 'shopfloor_run_claims_total',
  help: 'Claims by runners, by result: claimed (a run was started) or empty (nothing to run)',
  labelNames: ['result'] as const,
  registers: [registry],
})

export const leaseExpiries = new Counter({
  name: 'shopfloor_run_lease_expiries_total',
  help: 'Runs failed because their runner stopped reporting within the lease',
  registers: [registry],
})

export const schedulerSlots = new Counter({
  name: 'shopfloor_scheduler_slots_total',
  help: 'Scheduler slots due in this process, by kind (routine, heartbeat) and result: fired, skipped (already fired by another instance, or the agent is dormant), or idle (a heartbeat skipped by heartbeat_skip_idle: nothing to do)',
  labelNames: ['kind', 'result'] as const,
  registers: [registry],
})

export const webhookDeliveries = new Counter({
  name: 'shopfloor_webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome: delivered, retry (failed, tried again later), failed (given up after 24 hours)',
  labelNames: ['outcome'] as const,
  registers: [registry],
})

export const transcriptsTrimmed = new Counter({
  name: 'shopfloor_transcripts_trimmed_total',
  help: 'Run transcripts emptied by the retention policy (TRANSCRIPT_RETENTION_DAYS)',
  registers: [registry],
})

export const embeddedUpkeep = new Counter({
  name: 'shopfloor_embedded_upkeep_total',
  help: 'Tables of the embedded database the server analysed or vacuumed (it has no autovacuum), by action',
  labelNames: ['action'] as const,
  registers: [registry],
})

export const embeddedUpkeepSeconds = new Counter({
  name: 'shopfloor_embedded_upkeep_seconds_total',
  help: "Time the embedded database spent on the server's ANALYZE and VACUUM, while requests waited",
  registers: [registry],
})

// Read at scrape time by http/metrics.ts.
export const runsGauge = new Gauge({
  name: 'shopfloor_runs',
  help: 'Runs waiting or in progress, by status (queued, running)',
  labelNames: ['status'] as const,
  registers: [registry],
})
export const oldestQueuedRun = new Gauge({
  name: 'shopfloor_oldest_queued_run_age_seconds',
  help: 'Age of the oldest queued run (0 when none is queued)',
  registers: [registry],
})
export const pendingDeliveries = new Gauge({
  name: 'shopfloor_webhook_deliveries_pending',
  help: 'Webhook deliveries waiting to be sent or retried',
  registers: [registry],
})
export const eventStreams = new Gauge({
  name: 'shopfloor_event_streams',
  help: 'Open live event streams (GET .../events) in this process',
  registers: [registry],
})
export const publishFailures = new Counter({
  name: 'shopfloor_event_publish_failures_total',
  help: 'Live events that could not be handed to the event bus (Redis down)',
  registers: [registry],
})
export const dbPool = new Gauge({
  name: 'shopfloor_db_pool_connections',
  help: 'Database pool connections by state: in_use, idle, waiting (requests waiting for a connection)',
  labelNames: ['state'] as const,
  registers: [registry],
})

startAtZero(claims, { result: 'claimed' }, { result: 'empty' })
startAtZero(schedulerSlots, { kind: 'routine', result: 'fired' }, { kind: 'routine', result: 'skipped' },
  { kind: 'heartbeat', result: 'fired' }, { kind: 'heartbeat', result: 'skipped' }, { kind: 'heartbeat', result: 'idle' })
startAtZero(webhookDeliveries, { outcome: 'delivered' }, { outcome: 'retry' }, { outcome: 'failed' })
startAtZero(embeddedUpkeep, { action: 'analyze' }, { action: 'vacuum' })
