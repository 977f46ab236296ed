// The claim loop. The runner claims whenever a slot is free and there may be work: at start,
// on every `run.created` of the live stream (and after each reconnection), when one of its runs
// ends, and on a safety-net poll. The stream also tells it when a run it holds was cancelled or
// expired (`run.updated` with a finished status), so the agent is stopped at once rather than
// at the next heartbeat.
import type { Logger } from 'pino'
import { RECONNECT_DELAYS_MS, type RunContext, type ShopfloorClient } from '../client/index.ts'
import { adapterFor, buildAdapters, claimableAdapters } from './adapters/index.ts'
import type { Adapter } from './adapters/adapter.ts'
import { Cooldowns } from './cooldowns.ts'
import { Execution } from './execution.ts'
import type { RunnerOptions } from './options.ts'
import { prepareSandbox, runsLocally } from './sandbox.ts'

const FINISHED = new Set(['succeeded', 'failed', 'cancelled'])

export class Runner {
  private readonly executions = new Map<string, Execution>()
  private adapters = new Map<string, Adapter>()
  /** Adapter values named in claims; null claims every run (--simulate). */
  private claimable: string[] | null = []
  private readonly streamAbort = new AbortController()
  private pollTimer: NodeJS.Timeout | undefined
  /** Claim loops in progress, and how many (each asks for one free slot). */
  private readonly rounds = new Set<Promise<void>>()
  private claiming = 0
  private claimAgain = false
  private stopping = false
  /** Provider credentials resting until their limit's reset (cooldowns.ts), kept across restarts. */
  readonly cooldowns: Cooldowns

  constructor(
    private readonly client: ShopfloorClient,
    private readonly options: RunnerOptions,
    private readonly log: Logger,
  ) {
    this.cooldowns = new Cooldowns(Date.now, { cacheDir: options.cacheDir, runnerId: options.runnerId })
  }

  /** Finds the agent CLIs it can run, then claims. */
  async start(): Promise<void> {
    this.adapters = await buildAdapters(this.options, this.log)
    await this.confine()
    this.claimable = claimableAdapters(this.options, this.adapters)
    this.log.info({ runner_id: this.options.runnerId, company: this.options.companyId, adapters: this.claimable ?? 'all (simulated)',
      concurrency: this.options.concurrency }, 'runner started')
    const resting = this.cooldowns.kept()
    if (resting.length) this.log.warn({ cooldowns: resting }, 'provider credentials still resting from before the restart: no runs for them until their reset')
    // The first thing a newcomer without an agent CLI needs to know, and the way to try anyway.
    if (this.claimable && !this.claimable.some((a) => a.startsWith('agent_cli_'))) {
      this.log.warn('no agent CLI found on this machine (claude, codex, gemini, opencode, cursor-agent): runs of agents that use one wait ' +
        'for another runner. To try Shopfloor without one, start this runner again with --simulate')
    }
    if (this.stopping) return
    this.pollTimer = setInterval(() => this.claim(), this.options.pollSeconds * 1000)
    this.followEvents()
    this.claim()
  }

  /**
   * Makes the sandbox agents run in. Where it cannot be made, runs of agents that are processes
   * here (CLIs, commands) are left to other runners, unless the operator chose --no-sandbox.
   */
  private async confine(): Promise<void> {
    const { sandbox, problem, checkMs, exposesHome } = await prepareSandbox(this.options)
    this.options.confinement = sandbox
    if (problem) {
      const refused = [...this.adapters.keys()].filter(runsLocally)
      for (const name of refused) this.adapters.delete(name)
      this.log.error({ refused }, `agents cannot be confined: ${problem}; runs of CLI and command agents are refused (start the runner with --no-sandbox to run them unconfined)`)
    } else if (sandbox) {
      this.log.info({ bwrap: sandbox.bwrap, network: sandbox.network, check_ms: checkMs }, 'agents run in a bubblewrap sandbox')
      if (exposesHome.length) {
        this.log.warn({ folders: exposesHome }, 'these folders shown to agents hold this user\'s home (its keys, logins, settings); give --workdir a folder of its own')
      }
    } else {
      this.log.warn('agents run without a sandbox (--no-sandbox): each can read and change whatever this user can, this runner\'s key included')
    }
  }

  /**
   * Requests a claim. A request starts a claim loop of its own while a slot is free that no
   * loop is asking for already, so that runs queued together (tasks assigned at once) are
   * claimed side by side: claimed one round trip after another, the 20th of 20 runs queued at
   * once started its agent 20 claims late (bench workload 13: 0.8 s p50, 2 s p99). A request
   * while every free slot is being asked for is remembered, and causes another loop when one
   * ends (the run it announced may have been queued after that loop's last claim).
   */
  claim(): void {
    if (this.stopping) return
    if (this.executions.size + this.claiming >= this.options.concurrency) {
      this.claimAgain = true
      return
    }
    this.claiming++
    const round: Promise<void> = this.claimRound().finally(() => {
      this.claiming--
      this.rounds.delete(round)
      if (this.claimAgain) {
        this.claimAgain = false
        this.claim()
      }
    })
    this.rounds.add(round)
  }

  private async claimRound(): Promise<void> {
    // This loop's own slot counts in `claiming`: it goes on while that slot is still free.
    while (!this.stopping && this.executions.size + this.claiming <= this.options.concurrency) {
      let context: RunContext | null
      // What it can take now: not the adapters whose provider credential rests until a reset.
      const adapters = this.claimable ? this.cooldowns.available(this.claimable) : null
      try {
        context = await this.client.runs.claim(this.options.companyId, {
          runner_id: this.options.runnerId,
          ...(adapters ? { adapters } : {}),
          cooldowns: this.cooldowns.list(),
          ...(this.options.agentIds.length ? { agent_ids: this.options.agentIds } : {}),
          ...(this.options.versions && Object.keys(this.options.versions).length ? { versions: this.options.versions } : {}),
        })
      } catch (err: any) {
        this.log.warn({ err: err.message }, 'claim failed; the next poll tries again')
        return
      }
      if (!context) return
      this.launch(context)
    }
  }

  private launch(context: RunContext): void {
    const adapter = adapterFor(this.options, this.adapters, context.agent.adapter)
    const execution = new Execution(this.client, this.options, adapter, context, this.log, this.cooldowns)
    this.executions.set(context.run.id, execution)
    void execution.done.finally(() => {
      this.executions.delete(context.run.id)
      this.claim()
    })
  }

  private followEvents(): void {
    this.client
      .events(this.options.companyId, {
        signal: this.streamAbort.signal,
        delaysMs: RECONNECT_DELAYS_MS.map((ms) => ms * this.options.backoffScale),
        onConnected: () => this.claim(),
        onDisconnected: ({ retryInMs }) => this.log.warn({ retry_in_ms: retryInMs }, 'event stream disconnected; reconnecting'),
        onEvent: (event) => {
          if (event.type === 'run.created') {
            // Debug lines mark a run's way to its agent (bench/workloads/time-to-start.ts reads them).
            this.log.debug({ run_id: event.id }, 'run.created received')
            this.claim()
          }
          else if (event.type === 'run.updated' && event.id && FINISHED.has(String(event.status))) {
            this.executions.get(event.id)?.stop('lost')
          }
        },
      })
      .catch((err) => this.log.error({ err: err.message }, 'event stream refused; relying on polling'))
  }

  /**
   * Stops claiming, lets runs in progress finish for up to `graceSeconds`, then stops the rest
   * (they are reported failed) and waits for their final reports.
   */
  async shutdown(): Promise<void> {
    this.stopping = true
    clearInterval(this.pollTimer)
    this.streamAbort.abort()
    await Promise.all(this.rounds) // a run claimed just now is one of ours too
    await this.finishRuns()
    await this.sayGoodbye()
  }

  /** Tells the server this runner stopped, so its presence reads "Stopped" now rather than "Online" for minutes. */
  private async sayGoodbye(): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    try {
      // A server that is down must not hold the stop up: a few seconds at most.
      await Promise.race([
        this.client.runners.goodbye(this.options.companyId, this.options.runnerId),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no answer within 5 s')), 5000))),
      ])
    } catch (err: any) {
      this.log.warn({ err: err.message }, 'could not tell the server this runner stopped; it shows as gone once silent')
    } finally {
      clearTimeout(timer)
    }
  }

  private async finishRuns(): Promise<void> {
    const running = [...this.executions.values()]
    if (!running.length) return
    this.log.info({ runs: running.length, grace_seconds: this.options.graceSeconds }, 'waiting for runs in progress')
    let timer: NodeJS.Timeout | undefined
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.graceSeconds * 1000)))
    const allDone = Promise.all(running.map((e) => e.done))
    await Promise.race([allDone, grace])
    clearTimeout(timer)
    for (const execution of this.executions.values()) execution.stop('shutdown')
    await allDone
  }
}
