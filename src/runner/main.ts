// `shopfloor runner`: claims and executes agents' runs through the public API only.
import { ApiError, DEFAULT_RETRY, ShopfloorClient } from '../client/index.ts'
import { createLogger } from '../server/logger.ts'
import { OptionsError, parseRunnerOptions, RUNNER_USAGE } from './options.ts'
import { ResolveError, resolveAgents, resolveCompany } from './resolve.ts'
import { Runner } from './runner.ts'

export async function runRunnerProcess(args: string[]): Promise<void> {
  if (args[0] === 'doctor') {
    const { runDoctor } = await import('./doctor.ts')
    process.exitCode = await runDoctor(args.slice(1))
    return
  }
  let options
  try {
    options = parseRunnerOptions(args)
  } catch (err) {
    if (!(err instanceof OptionsError)) throw err
    process.stderr.write(`shopfloor runner: ${err.message}\n\n${RUNNER_USAGE}`)
    process.exit(2)
  }
  if (options === 'help') {
    process.stdout.write(RUNNER_USAGE)
    return
  }
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
