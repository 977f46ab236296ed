import { performance } from 'node:perf_hooks'
import { Recorder } from '../lib/stats.ts'
import { client } from './http.ts'

export interface RunnerScenario {
  base: string
  companyId: string
  apiKey: string
  runners: number
  /** Runs queued before the start; the loops stop once this many have finished. */
  total: number
  /** Upper bound on the run, in seconds, whatever is left. */
  seconds: number
}

/**
 * `runners` runner loops doing what a real runner does per run: claim it, report progress
 * (status running, tokens, a transcript line), then finish it (succeeded, cost). Every claimed
 * run id is remembered: a run handed to two claims is a double claim.
 */
export async function runnerLoops(s: RunnerScenario) {
  const http = client(s.base, s.runners)
  const recorder = new Recorder()
  const headers = { authorization: `Bearer ${s.apiKey}` }
  const prefix = `/api/companies/${s.companyId}/runs`
  const claimed = new Set<string>()
  let doubleClaims = 0
  let finished = 0
  let emptyClaims = 0
  let failures = 0
  const start = performance.now()
  const deadline = start + s.seconds * 1000

  const timed = async (method: string, path: string, body: unknown, ok: number[]) => {
    const sent = performance.now()
    const answer = await http.send({ method, path, headers, body })
    recorder.record(performance.now() - sent, answer.status, ok.includes(answer.status as number))
    return answer
  }

  const runner = async (index: number) => {
    const runnerId = `bench-runner-${index}`
    while (finished < s.total && performance.now() < deadline) {
      const claim = await timed('POST', `${prefix}/claim`, { runner_id: runnerId }, [200, 204])
      if (claim.status === 204) {
        // Nothing claimable right now (the other runners hold the last runs): look again soon.
        emptyClaims++
        await new Promise((r) => setTimeout(r, 5))
        continue
      }
      if (claim.status !== 200) {
        failures++
        continue
      }
      const runId = JSON.parse(claim.body).run.id as string
      if (claimed.has(runId)) doubleClaims++
      claimed.add(runId)
      const progress = { runner_id: runnerId, status: 'running', tokens_in: 100, tokens_out: 20, transcript: [{ text: 'working' }] }
      const report = await timed('PATCH', `${prefix}/${runId}`, progress, [200])
      const done = { runner_id: runnerId, status: 'succeeded', tokens_in: 100, tokens_out: 50, cost_cents: 1, summary: 'done' }
      const finish = await timed('PATCH', `${prefix}/${runId}`, done, [200])
      if (report.status === 200 && finish.status === 200) finished++
      else failures++
    }
  }

  await Promise.all(Array.from({ length: s.runners }, (_, i) => runner(i)))
  const seconds = (performance.now() - start) / 1000
  http.close()
  return recorder.result(seconds, {
    finished,
    finishedPerSecond: finished / seconds,
    claims: claimed.size,
    doubleClaims,
    emptyClaims,
    failures,
  })
}
