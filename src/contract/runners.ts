import { type Static, Type } from 'typebox'

// Runners a company's server has heard from: GET /api/companies/{company_id}/runners.

/** `versions` on a claim: the runner's CLI versions by program name, e.g. {"claude": "2.0.14"}. */
export const RunnerVersions = Type.Object({}, {
  additionalProperties: Type.String({ maxLength: 100 }),
  propertyNames: { minLength: 1, maxLength: 60 },
  maxProperties: 30,
})
export type RunnerVersions = Record<string, string>

export const RUNNER_STATUSES = ['online', 'stopped', 'gone'] as const

export const RunnerParams = Type.Object({ company_id: Type.String({ format: 'uuid' }), runner_id: Type.String({ minLength: 1, maxLength: 100 }) })

/** A run the runner holds now, named for people. */
export const RunnerRun = Type.Object({
  id: Type.String({ format: 'uuid' }),
  agent_id: Type.String({ format: 'uuid' }),
  agent_name: Type.String(),
  task_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  task_key: Type.Union([Type.String(), Type.Null()]),
  task_title: Type.Union([Type.String(), Type.Null()]),
  started_at: Type.Union([Type.String(), Type.Null()]),
})
export type RunnerRun = Static<typeof RunnerRun>

export const Runner = Type.Object({
  runner_id: Type.String(),
  /** The adapters it claims for; null when it claims for every adapter (a `--simulate` runner). */
  adapters: Type.Union([Type.Array(Type.String()), Type.Null()]),
  versions: RunnerVersions,
  first_seen_at: Type.String(),
  last_seen_at: Type.String(),
  running_runs: Type.Array(RunnerRun),
  /** Provider credentials the runner is not using until their reset, as its last claim or heartbeat said; past ones left out. */
  cooldowns: Type.Array(Type.Object({ provider: Type.String(), until: Type.String() })),
  /** `stopped` after a clean stop (its goodbye), `gone` once silent for more than two lease lengths. */
  status: Type.Unsafe<(typeof RUNNER_STATUSES)[number]>({ type: 'string', enum: [...RUNNER_STATUSES] }),
})
export type Runner = Omit<Static<typeof Runner>, 'versions'> & { versions: RunnerVersions }
