// How big and how long each mode runs. `quick` is what `npm run bench:quick` records in
// bench/RESULTS.md (under 8 minutes); `full` is `npm run bench`; `smoke` only proves that the
// harness works end to end (the CI test) and its figures mean nothing.

export type Mode = 'smoke' | 'quick' | 'full'

export interface Sizes {
  mode: Mode
  /** Measured seconds of each HTTP load run, after `warmup` seconds that are not counted. */
  seconds: number
  warmup: number
  connections: number
  /**
   * pgbench: scale factor, clients (Shopfloor's pool size) and seconds per script, or with
   * `transactions` that many per client instead (pgbench's shortest timed run is a second).
   */
  pgbench: { scale: number; clients: number; seconds: number; transactions?: number }
  /** Workload 1: tasks to read, round-robin. */
  readTasks: number
  /** Workload 3: runners working through `runs` queued runs of `agents` agents, capped in time. */
  runs: { runners: number; agents: number; runs: number; maxSeconds: number; stepRuns: number }
  /**
   * Workload 4: the large company, the small one it is compared with, a company where the
   * caller created `mine` open tasks (the dashboard's "for you"), seconds per endpoint, and
   * the concurrent readers of the second pass over the dashboards.
   */
  scale: {
    large: { agents: number; tasks: number; auditEvents: number; runs: number }
    small: { agents: number; tasks: number; auditEvents: number; runs: number }
    mine: number
    seconds: number
    connections: number
    readers: number
  }
  /**
   * Workloads 11 and 12, cells measured against another product: the dashboard of a company of
   * `dashboardTasks` tasks and creates with an assignee in companies of each of `createTasks`
   * tasks (a database each), with `connections` connections.
   */
  cells: { dashboardTasks: number; createTasks: number[]; connections: number }
  /** Workload 13: time to start, with `agents` agents; `single` rounds of one task, `burst` rounds of one task per agent at once. */
  start: { agents: number; single: number; burst: number }
  /** Workload 5: concurrent event streams. */
  streams: number
  /** Workload 6: sign-ins per second during workload 1. */
  loginRate: number
  /** Workload 9: the idle window in seconds, agents, connected runners and browser event streams. */
  idle: { seconds: number; agents: number; runners: number; streams: number }
  /** Workload 7: seconds without requests after workload 1 before the embedded server's RSS is read again. */
  quietSeconds: number
  /**
   * Seconds waited before PostgreSQL's commit counters (pg_stat_database) are read, so that the
   * work just done is in them (workloads 3 and 9): a busy backend reports its counts at most once
   * a second (`busy`), one that went idle 10 s later (`idle`, PGSTAT_IDLE_INTERVAL).
   */
  statsWait: { busy: number; idle: number }
  /**
   * One load-generator process for every load run of the harness instead of one per run. Only
   * where the figures do not matter: a run then inherits the generator's warmed-up state from
   * the runs before it, and its start-up (a TypeScript process) would cost more than the run.
   */
  oneGenerator: boolean
  /**
   * Workloads 4 and 9 on the PostgreSQL server and database of workloads 1-3, 6 and 8 (4 first,
   * 9 last) instead of each on a server and database of its own. Only where the figures do not
   * matter: the other workloads' data is then beside theirs, and a server start is most of the
   * cost of a smoke-sized workload.
   */
  oneServer: boolean
}

const STATS_WAIT = { busy: 1.1, idle: 10.5 }

const CELLS = { dashboardTasks: 2_000, createTasks: [2_000, 20_000], connections: 20 }

const IDLE = { agents: 100, runners: 20, streams: 50 }

const FULL_SCALE = {
  large: { agents: 50, tasks: 100_000, auditEvents: 1_000_000, runs: 1_000_000 },
  // A hundredth of the history (a fiftieth of the tasks) but full pages: every list below
  // answers as many rows as in the large company (two agents with 1,000 tasks each, 200 pages
  // of activity), so the comparison isolates the effect of size.
  small: { agents: 2, tasks: 2_000, auditEvents: 10_050, runs: 10_000 },
  mine: 100_000,
  readers: 20,
}

export const SIZES: Record<Mode, Sizes> = {
  smoke: {
    mode: 'smoke',
    seconds: 0.2,
    warmup: 0.05,
    connections: 10,
    pgbench: { scale: 1, clients: 4, seconds: 1, transactions: 50 },
    readTasks: 5,
    runs: { runners: 2, agents: 5, runs: 20, maxSeconds: 10, stepRuns: 5 },
    scale: {
      large: { agents: 5, tasks: 600, auditEvents: 10_050, runs: 1_000 },
      small: { agents: 5, tasks: 600, auditEvents: 10_050, runs: 100 },
      mine: 600,
      seconds: 0.05,
      connections: 1,
      readers: 2,
    },
    cells: { dashboardTasks: 100, createTasks: [100], connections: 4 },
    start: { agents: 2, single: 1, burst: 1 },
    streams: 5,
    loginRate: 4,
    idle: { seconds: 1, agents: 5, runners: 2, streams: 2 },
    quietSeconds: 1,
    // The smoke run's counts are not figures: nothing to wait for.
    statsWait: { busy: 0, idle: 0 },
    oneGenerator: true,
    oneServer: true,
  },
  quick: {
    mode: 'quick',
    seconds: 6,
    warmup: 1,
    connections: 50,
    pgbench: { scale: 10, clients: 10, seconds: 6 },
    readTasks: 200,
    runs: { runners: 8, agents: 1_000, runs: 10_000, maxSeconds: 30, stepRuns: 300 },
    scale: { ...FULL_SCALE, seconds: 2, connections: 1 },
    cells: CELLS,
    start: { agents: 20, single: 10, burst: 3 },
    streams: 1_000,
    loginRate: 20,
    idle: { seconds: 120, ...IDLE },
    quietSeconds: 60,
    statsWait: STATS_WAIT,
    oneGenerator: false,
    oneServer: false,
  },
  full: {
    mode: 'full',
    seconds: 30,
    warmup: 5,
    connections: 50,
    pgbench: { scale: 10, clients: 10, seconds: 30 },
    readTasks: 1_000,
    runs: { runners: 8, agents: 1_000, runs: 10_000, maxSeconds: 300, stepRuns: 1_000 },
    scale: { ...FULL_SCALE, seconds: 10, connections: 1 },
    cells: CELLS,
    start: { agents: 20, single: 30, burst: 10 },
    streams: 1_000,
    loginRate: 20,
    idle: { seconds: 600, ...IDLE },
    quietSeconds: 60,
    statsWait: STATS_WAIT,
    oneGenerator: false,
    oneServer: false,
  },
}
