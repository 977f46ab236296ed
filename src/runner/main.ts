// `shopfloor runner`: claims and executes agents' runs through the public API only.
import { isKeyChild, receiveKey, runWithoutKey } from './key-handoff.ts'
import { OptionsError, parseRunnerOptions, RUNNER_USAGE } from './options.ts'

export async function runRunnerProcess(args: string[]): Promise<void> {
  if (args[0] === 'doctor') {
    const { runDoctor } = await import('./doctor.ts')
    process.exitCode = await runDoctor(args.slice(1))
    return
  }
  // The key is read here once; the process that runs agents gets it handed, never in its environment.
  const handedKey = isKeyChild() ? await receiveKey() : undefined
  let options
  try {
    options = parseRunnerOptions(args, process.env, handedKey)
  } catch (err) {
    if (!(err instanceof OptionsError)) throw err
    process.stderr.write(`shopfloor runner: ${err.message}\n\n${RUNNER_USAGE}`)
    process.exit(2)
  }
  if (options === 'help') {
    process.stdout.write(RUNNER_USAGE)
    return
  }
  if (handedKey === undefined) {
    runWithoutKey(options.apiKey)
    return
  }
  // Loaded only by the process that runs: the one that hands the key over stays small.
  const [{ ApiError, DEFAULT_RETRY, ShopfloorClient }, { createLogger }, { ResolveError, resolveAgents, resolveCompany }, { Runner }] = await Promise.all([
    import('../client/index.ts'), import('../server/logger.ts'), import('./resolve.ts'), import('./runner.ts'),
  ])
  const log = createLogger({ production: process.env.ENVIRONMENT === 'production', logLevel: process.env.LOG_LEVEL || 'info' })
  const client = new ShopfloorClient({
    baseUrl: options.url,
    credentials: { apiKey: options.apiKey },
    retry: { baseDelayMs: DEFAULT_RETRY.baseDelayMs * options.backoffScale, maxDelayMs: DEFAULT_RETRY.maxDelayMs * options.backoffScale },
  })

  // Fail fast on a wrong key or company rather than polling forever.
  try {
    options.companyId = await resolveCompany(client, options.companyId)
    options.agentIds = await resolveAgents(client, options.companyId, options.agentIds)
    await client.companies.get(options.companyId)
  } catch (err) {
    const reason = err instanceof ApiError ? `${err.code}: ${err.message}` : (err as Error).message
    if (err instanceof ResolveError) {
      process.stderr.write(`shopfloor runner: ${reason}\n`)
      process.exit(4)
    }
    process.stderr.write(`shopfloor runner: cannot use company ${options.companyId} at ${options.url}: ${reason}\n`)
    process.exit(err instanceof ApiError && (err.status === 401 || err.status === 403) ? 3 : 4)
  }

  const runner = new Runner(client, options, log)
  let stopping = false
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return
      stopping = true
      log.info({ signal }, 'shutting down: no new claims')
      runner.shutdown().then(
        () => {
          log.info('runner stopped')
          process.exit(0)
        },
        (err) => {
          log.error({ err }, 'shutdown failed')
          process.exit(1)
        },
      )
    })
  }
  // After the handlers: a signal while the CLIs are being found still stops the runner cleanly.
  await runner.start()
}
