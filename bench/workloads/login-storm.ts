import { runLoad } from '../lib/processes.ts'
import { LOAD_COLUMNS, loadCells, ms, type Section } from '../lib/report.ts'
import type { LoadResult } from '../lib/stats.ts'
import { type Bench, closedLoop } from './context.ts'
import { type Fixture, taskReads } from './fixture.ts'

/** A sign-in still unanswered this long after it was sent is counted as a timeout. */
const STORM_TIMEOUT_SECONDS = 10

/**
 * Workload 6: sign-ins (bcrypt) at a steady rate, in a second generator process, while
 * workload 1 runs again. Target: workload 1's p99 stays under 3 times its quiet value.
 */
export async function loginStorm(bench: Bench, f: Fixture, quiet: LoadResult): Promise<Section> {
  const { loginRate, seconds, warmup } = bench.sizes
  bench.log(`workload 6: ${loginRate} sign-ins/s during workload 1`)
  const login = { method: 'POST', path: '/api/login', body: { email: f.account.email, password: f.account.password } }
  const [reads, logins] = await Promise.all([
    runLoad(closedLoop(bench, f.base, taskReads(f))),
    runLoad({ mode: 'rate', base: f.base, rate: loginRate, seconds: seconds + warmup, timeoutSeconds: STORM_TIMEOUT_SECONDS, requests: [login], okStatus: 200 }),
  ])
  const factor = reads.p99 / quiet.p99
  return {
    title: '6. Sign-in storm during workload 1',
    columns: ['run', ...LOAD_COLUMNS],
    rows: [
      ['workload 1 alone (above)', ...loadCells(quiet)],
      [`workload 1 during the storm`, ...loadCells(reads)],
      [`POST /api/login at ${loginRate}/s (open loop)`, ...loadCells(logins)],
    ],
    verdicts: [{ target: "workload 1's p99 under 3x its quiet value", measured: `${factor.toFixed(2)}x (${ms(quiet.p99)} -> ${ms(reads.p99)} ms)`, met: factor < 3 }],
    notes: [
      'Passwords are bcrypt cost 12 (src/server/auth/passwords.ts); every sign-in is one full hash comparison.',
      `Sign-in latencies count from the moment each was sent; a sign-in unanswered after ${STORM_TIMEOUT_SECONDS} s counts as a timeout error. ` +
        'Where the machine cannot hash as fast as the storm asks, sign-ins queue and time out: the target is about the other requests.',
    ],
  }
}
