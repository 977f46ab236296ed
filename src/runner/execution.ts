// One claimed run, from claim to final report: heartbeats keep the lease, the transcript is
// streamed in batches, the adapter does the work, and the outcome goes back to the task (a
// comment, and a status) and to the run (status, usage, summary, error).
//
// The run stops early, and reports nothing more, when the server says it is no longer ours
// (RUN_LEASE_LOST, RUN_FINISHED, RUN_NOT_RUNNING: cancelled, expired or taken over). When the
// runner shuts down it stops the run and reports it failed.
import { mkdirSync, mkdtempSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Logger } from 'pino'
import { ApiError, type RunContext, type ShopfloorClient } from '../client/index.ts'
import type { Adapter, AdapterResult, AgentSettings, Usage } from './adapters/adapter.ts'
import type { ProviderLimit } from '../client/index.ts'
import { limitWords } from './adapters/cli/limits.ts'
import { ADAPTER_PRODUCTS } from '../contract/adapter-config.ts'
import type { Cooldowns } from './cooldowns.ts'
import { agentEnvironment, refusedForAgent } from './environment.ts'
import type { RunnerOptions } from './options.ts'
import { buildPrompt } from './prompt.ts'
import { keepSession, resumeFrom } from './sessions.ts'
import { installSkills, type SkillInstall } from './skills.ts'
import { clip, COMMENT_MAX_CHARS, ERROR_MAX_CHARS, SUMMARY_MAX_CHARS } from './text.ts'
import { storable, TranscriptBuffer } from './transcript.ts'
import { spendLimits, spendStop } from './spend-guard.ts'
import { afterAgent } from './work/after-agent.ts'
import { mergeApproved } from './work/merge.ts'
import { prepareWorkspace } from './workspace.ts'
import { confinementNote, runsLocally } from './sandbox.ts'
import { shareLogin } from './cli-login.ts'

/** Answers that mean the run is not ours to continue. */
const STOP_CODES = new Set(['RUN_LEASE_LOST', 'RUN_FINISHED', 'RUN_NOT_RUNNING'])

export type StopReason = 'lost' | 'shutdown' | 'spend' | 'timeout'

/** Stops the run decides itself, for which it still reports (a later loss or shutdown takes over). */
const ownStop = (reason: StopReason | null) => reason === 'spend' || reason === 'timeout'

function isStopSignal(err: unknown): err is ApiError {
  return err instanceof ApiError && STOP_CODES.has(err.code)
}

/** Thrown inside an execution once the run is no longer ours, to skip the remaining steps. */
class RunLost extends Error {}

/** An adapter as people know it ("Codex"), or its name where it is no adapter of ours. */
const cliName = (adapter: string): string => (ADAPTER_PRODUCTS as Record<string, string>)[adapter] ?? adapter

/** What one agent CLI needs in a run: its environment, shared login and installed skills. */
interface Launch {
  adapter: Adapter
  env: Record<string, string>
  sharedFiles: ReturnType<typeof shareLogin> | null
  skills: SkillInstall
  billing: 'api' | 'plan'
}

export class Execution {
  private readonly abort = new AbortController()
  private stopReason: StopReason | null = null
  /** Set once the final report is on its way: the run's own end is not a reason to stop. */
  private finishing = false
  /** Aborted when the runner shuts down: a final report the server cannot take is given up. */
  private readonly shutdown = new AbortController()
  private usage: Usage = { tokens_in: 0, tokens_out: 0, cost_cents: 0 }
  /** Why the run was stopped at a spend limit (spend-guard.ts); null while within them. */
  private spendError: string | null = null
  /** The agent CLI's session id, reported with the usage once known. */
  private sessionId: string | undefined
  /** `plan` once the run uses the runner's shared CLI login (--share-cli-login). */
  private billing: 'api' | 'plan' = 'api'
  private readonly log: Logger
  readonly done: Promise<void>

  constructor(
    private readonly client: ShopfloorClient,
    private readonly options: RunnerOptions,
    private readonly adapter: Adapter,
    private readonly context: RunContext,
    log: Logger,
    /** The runner's provider cool-downs: told of a limit this run met, and reported with heartbeats. */
    private readonly cooldowns: Cooldowns | null = null,
    /** Another agent CLI of this runner, for a fallback that names it; null where it has none to offer. */
    private readonly otherAdapter: (name: string) => Adapter | null = () => null,
  ) {
    this.log = log.child({ run_id: context.run.id, agent: context.agent.name })
    this.done = this.execute().catch((err) => this.log.error({ err }, 'run execution failed'))
  }

  /**
   * Stops the agent: 'lost' when the run is no longer ours, 'shutdown' when the runner stops,
   * 'spend' at a spend limit, 'timeout' at the runner's time limit for a run. A run lost or shut
   * down after a spend or time stop still counts as lost or shut down (it reports accordingly, or
   * not at all).
   */
  stop(reason: StopReason): void {
    if (reason === 'shutdown') this.shutdown.abort()
    if (this.finishing || (this.stopReason && !(ownStop(this.stopReason) && !ownStop(reason)))) return
    const first = this.stopReason === null
    this.stopReason = reason
    const messages = {
      lost: 'run is no longer ours; stopping the agent',
      shutdown: 'stopping the run for shutdown',
      spend: 'stopping the agent at a spend limit',
      timeout: 'stopping the agent at the run\'s time limit',
    }
    this.log.info({ reason }, messages[reason])
    // The reason goes with the signal: a spend stop is a kill at once (adapters/child.ts, SPEND_STOP).
    if (first) this.abort.abort(new Error(reason))
  }

  /** Every usage update: the running totals are kept, and a run past a spend limit is stopped. */
  private onUsage(totals: Usage): void {
    this.usage = totals
    if (this.spendError) return
    this.spendError = spendStop(spendLimits(this.context.agent), totals.cost_cents)
    if (this.spendError) {
      this.log.warn({ cost_cents: totals.cost_cents, reason: this.spendError }, 'spend limit reached')
      this.stop('spend')
    }
  }

  private async execute(): Promise<void> {
    const { run, company, task } = this.context
    const report = (body: Omit<Parameters<ShopfloorClient['runs']['report']>[2], 'runner_id'>) =>
      this.guard(() => this.client.runs.report(company.id, run.id, { runner_id: this.options.runnerId, ...body }))
    const transcript = new TranscriptBuffer(
      (entries) => report({ transcript: entries, ...this.usage, session_id: this.sessionId }).then(() => undefined),
      this.options.flushSeconds * 1000,
      this.options.flushChars,
      (err) => {
        if (!(err instanceof RunLost)) this.log.warn({ err: describe(err) }, 'transcript report failed; will retry')
      },
    )
    // Every heartbeatSeconds, and at least three times per lease: a server with a short
    // RUN_LEASE_SECONDS would otherwise expire runs whose agent is quiet.
    const heartbeatSeconds = Math.min(this.options.heartbeatSeconds, Math.max(0.1, this.context.lease_seconds / 3))
    const heartbeat = setInterval(() => {
      this.guard(() => this.client.runs.heartbeat(company.id, run.id, this.options.runnerId, this.cooldowns?.list())).catch((err) => {
        if (!(err instanceof RunLost)) this.log.warn({ err: describe(err) }, 'heartbeat failed')
      })
    }, heartbeatSeconds * 1000)
    // The lease holds while heartbeats go on, whatever the agent does: a hung agent is ended here.
    const limitSeconds = this.options.runTimeoutSeconds
    const timeLimit = limitSeconds > 0 ? setTimeout(() => this.stop('timeout'), limitSeconds * 1000) : undefined
    // The run's home: a new empty folder, or with --agent-homes the agent's own kept one.
    const keptHome = this.options.agentHomes ? join(this.options.agentHomes, this.context.agent.id) : null
    if (keptHome) mkdirSync(keptHome, { recursive: true, mode: 0o700 })
    const home = keptHome ?? mkdtempSync(join(tmpdir(), 'shopfloor-agent-config-'))
    let workspace: Awaited<ReturnType<typeof prepareWorkspace>> | null = null
    const skills: SkillInstall[] = []
    const removeSkills = () => { for (const installed of skills.splice(0)) installed.remove() }

    try {
      this.log.info({ adapter: this.adapter.name, task: task?.key ?? null }, 'run started')
      const sandbox = this.options.confinement ?? null
      transcript.add('system', `Runner ${this.options.runnerId} started the run (adapter ${this.adapter.name}).${confinementNote(sandbox, this.adapter.name)}\n`)
      let result: AdapterResult
      try {
        workspace = await prepareWorkspace(this.context, this.options, this.log)
      } catch (err: any) {
        result = { ok: false, reply: '', error: `could not prepare the working folder: ${err.message}` }
      }
      this.log.debug('workspace ready')
      // Lost while the folder was prepared (a clone can take minutes): start no agent for it.
      if (this.lost()) throw new RunLost()
      const config = this.settings((text) => transcript.add('system', text))
      // A kept home resumes the CLI's session of the agent's last run on the task, if it holds it.
      const resume = keptHome ? resumeFrom(await this.lastSession(), keptHome, this.context.fresh_session) : { session: null, note: null }
      if (resume.note) transcript.add('system', resume.note)
      // What one CLI needs in the run (its credential variables, shared login, skills), made for
      // the agent's own adapter now and for another one when a fallback names it.
      const prepare = (adapter: Adapter): Launch => {
        const installed = installSkills(this.context.skills ?? [], home, adapter.name)
        skills.push(installed)
        for (const why of installed.skipped) transcript.add('system', `Skill left out: ${why}\n`)
        const env = agentEnvironment({
          runnerEnv: process.env,
          context: this.context,
          apiUrl: this.options.url,
          // The run's own credential, with the agent's rights for this run only; never the runner's key.
          apiKey: this.context.run_token ?? '',
          configDir: home,
          home,
          credentials: adapter.credentials ?? [],
          passEnv: this.options.passEnv,
          agentEnv: this.context.agent.adapter_config?.env ?? [],
          allowAgentEnv: this.options.allowAgentEnv,
        })
        // --share-cli-login: the runner user's CLI login, read-only (cli-login.ts). The run is on a
        // plan when that login is what the CLI uses: none of its credential variables is set.
        const sharedFiles = this.options.shareCliLogin && runsLocally(adapter.name)
          ? shareLogin(adapter.name, process.env.HOME || homedir(), home, sandbox !== null)
          : null
        const onPlan = sharedFiles !== null && !(adapter.credentials ?? []).some((name) => env[name])
        if (onPlan) {
          transcript.add('system', 'Using the runner\'s own CLI login (--share-cli-login), read-only: billed to its plan; cost shows the list-price equivalent.\n')
        }
        return { adapter, env, sharedFiles, skills: installed, billing: onPlan ? 'plan' : 'api' }
      }
      const launch = prepare(this.adapter)
      this.billing = launch.billing
      /** The CLI of the last attempt: the one whose provider a limit it met belongs to. */
      let ranOn = this.adapter
      // A merge after an approval starts no agent (work/merge.ts).
      const merging = this.context.run.purpose === 'merge'
      if (merging) {
        result ??= await mergeApproved(this.context, workspace!.cwd, workspace!.repository)
          .catch((err: Error): AdapterResult => ({ ok: false, reply: '', error: `could not merge the approved branch: ${err.message}` }))
      }
      this.log.debug('agent starting')
      result ??= await this.withFallback(config, transcript, launch, prepare, (on, attemptConfig, usageBase) => {
        this.billing = on.billing
        ranOn = on.adapter
        const own = on.adapter === this.adapter
        return on.adapter.run({
          context: this.context,
          prompt: buildPrompt(this.context, { tools: on.adapter.ownHome === true, skills: on.skills }),
          cwd: workspace!.cwd,
          home,
          env: on.env,
          sandbox,
          ...(on.sharedFiles ? { sharedFiles: on.sharedFiles, sharedLogin: true } : {}),
          config: attemptConfig,
          // A session is its own CLI's: another CLI starts afresh, and its session is not kept for the agent's next run.
          resumeSession: own ? resume.session : null,
          transcript: (role, text) => transcript.add(role, text),
          usage: (totals) => this.onUsage(addUsage(usageBase, totals)),
          session: (id) => { if (own) this.sessionId = id },
          signal: this.abort.signal,
        })
      })
      if (keptHome && this.sessionId) keepSession(keptHome, this.sessionId)
      // The skills were for the agent's process, now ended: gone before the run is reported
      // finished, so that the agent's next run, which may start in this home as soon as it is,
      // does not have its own skills removed by this one.
      removeSkills()
      if (this.lost()) throw new RunLost()
      if (this.stopReason === 'shutdown') result = { ...result, ok: false, error: 'the runner shut down before the run finished' }
      if (this.stopReason === 'spend') result = { ...result, ok: false, error: this.spendError }
      if (this.stopReason === 'timeout') {
        result = { ...result, ok: false, error: `stopped at the runner's time limit for a run, ${limitSeconds} s (--run-timeout-seconds): the agent had not finished` }
      }
      // What the agent printed goes into the reply comment, the summary and the error as text.
      result = { ...result, reply: storable(result.reply), error: result.error === null ? null : storable(result.error) }

      // A task's branch: the work committed, recorded, pushed, then checked (work/after-agent.ts).
      let checksFailed = false
      if (workspace?.repository && this.stopReason === null && !merging) {
        const after = await afterAgent({
          context: this.context, cwd: workspace.cwd, repository: workspace.repository, home, env: launch.env, sandbox,
          agentSucceeded: result.ok, summary: clip(result.reply, SUMMARY_MAX_CHARS), allowChecks: this.options.allowChecks,
          killAfterMs: this.options.killAfterSeconds * 1000, signal: this.abort.signal,
          report: (body) => report(body),
          uploadPatch: (patch) => this.guard(() => this.client.runs.uploadPatch(company.id, run.id, this.options.runnerId, patch)),
          note: (text) => transcript.add('system', text),
        })
        if (this.lost()) throw new RunLost()
        checksFailed = after.passed === false
      }

      await transcript.flush()
      if (result.ok && task) {
        // The run's own outcome is still reported when the task cannot take it (deleted meanwhile).
        await this.reportToTask(result.reply, !checksFailed && !merging).catch((err) => {
          if (err instanceof RunLost) throw err
          this.log.warn({ err: describe(err) }, 'could not post the reply to the task')
        })
      }
      this.finishing = true
      // A provider's limit (adapters/cli/limits.ts): the server defers the work to the reset, and
      // this runner rests that provider's credential until then (cooldowns.ts).
      // An overload is no limit of the credential: it fails the run (or tries the fallback model).
      const met = !result.ok && !this.stopReason ? result.limit : null
      const limit: ProviderLimit | null = met && met.kind !== 'overloaded' ? { provider: met.provider, kind: met.kind, reset_at: met.reset_at } : null
      if (limit) {
        result = { ...result, error: `${result.error ?? 'failed'} (${limitWords(limit)})` }
        // Why, for `shopfloor runner doctor`: the run's error, which names the CLI and what it said.
        this.cooldowns?.add(limit, ranOn.name, clip(result.error!, 500))
        this.log.warn({ limit }, 'the provider refused for a limit; the work is deferred to its reset')
      }
      const final = {
        status: result.ok ? ('succeeded' as const) : ('failed' as const),
        ...this.usage,
        summary: result.reply ? clip(result.reply, SUMMARY_MAX_CHARS) : null,
        session_id: this.sessionId,
        error: result.error === null ? null : clip(result.error, ERROR_MAX_CHARS),
        transcript: transcript.take(),
        ...(this.billing === 'plan' ? { billing: this.billing } : {}),
        ...(limit ? { limit } : {}),
      }
      await this.untilDelivered(() => report(final))
      this.log.info({ status: result.ok ? 'succeeded' : 'failed', error: result.error }, 'run finished')
    } catch (err) {
      if (!(err instanceof RunLost)) throw err
      this.log.info('run ended without a final report: it is no longer held by this runner')
    } finally {
      clearInterval(heartbeat)
      clearTimeout(timeLimit)
      transcript.close()
      await workspace?.dispose()
      removeSkills()
      // Off the event loop, as the worktree (workspace.ts): a CLI's home holds its caches.
      if (!keptHome) await rm(home, { recursive: true, force: true })
    }
  }

  /**
   * Runs the agent on its model, then on each of adapter_config.fallback in turn while the last
   * one ended overloaded or over a provider's limit (adapters/cli/limits.ts). The transcript says
   * which model runs, on which CLI, and why; each attempt's usage is priced for its own model by
   * its CLI and added to the run's. A fallback naming another agent CLI runs on it when this
   * runner has that CLI and its provider credential is not resting (the CLI's credential, login
   * and skills are then set up for it in the same home); else it is left out, saying why.
   */
  private async withFallback(
    config: AgentSettings,
    transcript: TranscriptBuffer,
    primaryLaunch: Launch,
    prepare: (adapter: Adapter) => Launch,
    attempt: (launch: Launch, config: AgentSettings, usageBase: Usage) => Promise<AdapterResult>,
  ): Promise<AdapterResult> {
    const { fallback = [], ...primary } = config
    const tries: { model?: string; adapter: Adapter }[] = [{ model: primary.model, adapter: this.adapter }]
    for (const f of fallback) {
      const other = !f.adapter || f.adapter === this.adapter.name ? this.adapter : this.otherAdapter(f.adapter)
      if (other) tries.push({ model: f.model, adapter: other })
      else transcript.add('system', `Fallback model ${f.model} on ${cliName(f.adapter!)} left out: this runner has no such CLI, or its provider's limit rests it until a reset.\n`)
    }
    const launches = new Map<Adapter, Launch>([[this.adapter, primaryLaunch]])
    let result: AdapterResult | null = null
    for (let i = 0; i < tries.length; i++) {
      const { model, adapter } = tries[i]!
      let launch = launches.get(adapter)
      if (!launch) launches.set(adapter, (launch = prepare(adapter)))
      // Another CLI gets only the model: the primary's other settings (max_turns, args) are its own CLI's.
      const settings = adapter === this.adapter ? primary : { ...(primary.max_turns !== undefined ? { max_turns: primary.max_turns } : {}) }
      result = await attempt(launch, model ? { ...settings, model } : settings, { ...this.usage })
      const next = tries[i + 1]
      if (result.ok || !result.limit || !next || this.stopReason) break
      const why = result.limit.kind === 'overloaded' ? `${result.limit.provider} overloaded` : `${result.limit.provider} ${result.limit.kind.replace('_', ' ')}`
      const on = next.adapter === adapter ? '' : ` on ${cliName(next.adapter.name)}`
      transcript.add('system', `Model ${model ?? '(the CLI\'s default)'} failed (${why}); running the fallback model ${next.model}${on}.\n`)
    }
    return result!
  }

  /**
   * The final reply goes to the task while the run is still running, so that the comment and
   * the status change are attributed to the agent (run_id).
   */
  private async reportToTask(reply: string, moveTask: boolean): Promise<void> {
    const { company, task, run } = this.context
    const blocked = reply.startsWith('BLOCKED:')
    if (reply) {
      await this.guard(() =>
        this.client.comments.create(company.id, task!.id, {
          body: clip(reply, COMMENT_MAX_CHARS),
          kind: blocked ? 'question' : 'comment',
          run_id: run.id,
        }),
      )
    }
    // Work whose checks failed stays where it is: the server sends it back to the agent.
    if (!moveTask && !blocked) return
    await this.guard(() =>
      this.client.tasks.update(company.id, task!.id, { status: blocked ? 'blocked' : this.options.successStatus, run_id: run.id }),
    )
  }

  /**
   * The final report, tried again while the server cannot take it (down, restarting, 5xx)
   * until the lease would be over: a server restart at the wrong moment must not turn a
   * finished run into one that expires as failed. Heartbeats go on meanwhile. An answer
   * about the request itself (4xx) or the run (no longer ours) ends the attempts, and so does
   * the runner shutting down past its grace period (the run then expires with its lease).
   */
  private async untilDelivered(send: () => Promise<unknown>): Promise<void> {
    const deadline = Date.now() + this.context.lease_seconds * 1000
    const abandoned = this.shutdown.signal
    const scale = this.options.backoffScale
    for (let waitMs = 1000 * scale; ; waitMs = Math.min(waitMs * 2, 15_000 * scale)) {
      try {
        await send()
        return
      } catch (err) {
        const refused = err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 429
        if (err instanceof RunLost || refused || abandoned.aborted || Date.now() + waitMs > deadline) throw err
        this.log.warn({ err: describe(err), retry_in_ms: waitMs }, 'final report failed; trying again')
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, waitMs)
          abandoned.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true })
        })
        if (abandoned.aborted) throw err
      }
    }
  }

  /** The run is no longer ours (a method, so the answer is read afresh after each await). */
  private lost(): boolean {
    return this.stopReason === 'lost'
  }

  /** Calls the API; an answer that means "not yours any more" stops the run and throws RunLost. */
  private async guard<T>(call: () => Promise<T>): Promise<T> {
    if (this.lost()) throw new RunLost()
    try {
      return await call()
    } catch (err) {
      if (isStopSignal(err)) {
        this.stop('lost')
        throw new RunLost()
      }
      throw err
    }
  }

  /**
   * The agent's adapter_config as the adapter reads it. Its own command and args choose what
   * runs on this machine only on a runner started with --allow-agent-commands: editing an
   * agent must not let a company member run commands here.
   */
  private settings(note: (text: string) => void): AgentSettings {
    const { env = [], ...config } = (this.context.agent.adapter_config ?? {}) as AgentSettings & { env?: string[] }
    // Named in the agent's env but not passed on (environment.ts): said, not silently dropped.
    for (const name of env) {
      const refused = refusedForAgent(name, this.options.allowAgentEnv)
      if (refused) note(`Not passed to the agent: ${refused}.\n`)
    }
    if (this.options.allowAgentCommands) return config
    const { command, args, ...rest } = config
    if (command !== undefined || args !== undefined) {
      note('The agent\'s own adapter_config command and args are ignored: this runner was not started with --allow-agent-commands.\n')
    }
    return rest
  }

  /** The session id of this agent's last run on this task that kept one (resumed with kept homes). */
  private async lastSession(): Promise<{ runId: string; sessionId: string } | null> {
    const { company, agent, task, run } = this.context
    if (!task) return null
    try {
      const runs = await this.client.runs.list(company.id, { agent_id: agent.id, task_id: task.id, limit: 20 })
      const last = runs.find((r) => r.id !== run.id && r.session_id)
      return last ? { runId: last.id, sessionId: last.session_id! } : null
    } catch (err) {
      this.log.warn({ err: describe(err) }, 'could not read the last session; starting a new one')
      return null
    }
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

function addUsage(a: Usage, b: Usage): Usage {
  return { tokens_in: a.tokens_in + b.tokens_in, tokens_out: a.tokens_out + b.tokens_out, cost_cents: a.cost_cents + b.cost_cents }
}
