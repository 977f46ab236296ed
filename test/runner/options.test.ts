import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { OptionsError, parseRunnerOptions, type RunnerOptions } from '../../src/runner/options.ts'
import { tempDir } from '../server-process.ts'

const KEY = 'svc_live_abcdefghijklmnopqrstuvwxyz012345'
const COMPANY = '00000000-0000-4000-8000-000000000001'
const base = ['--url', 'http://api.example.test/', '--company', COMPANY]
const parse = (args: string[], env: Record<string, string> = {}) =>
  parseRunnerOptions(args, { XDG_CONFIG_HOME: tempDir('shopfloor-runner-options-'), SHOPFLOOR_API_KEY: KEY, ...env }) as RunnerOptions

describe('runner options', () => {
  it('has the reference defaults', () => {
    expect(parse(base)).toMatchObject({
      url: 'http://api.example.test', apiKey: KEY, companyId: COMPANY, concurrency: 2, pollSeconds: 30, heartbeatSeconds: 30,
      flushSeconds: 2, flushChars: 4096, killAfterSeconds: 5, simulate: false, promptVia: 'stdin', successStatus: 'in_review',
      agentCommands: { agent_cli_1: null, agent_cli_2: null }, agentIds: [],
    })
  })

  it('needs an API key, and refuses a password session token', () => {
    expect(() => parse(base, { SHOPFLOOR_API_KEY: '' })).toThrow(/no API key/)
    expect(() => parse(base, { SHOPFLOOR_API_KEY: 'eyJhbGciOiJIUzI1NiJ9.e30.sig' })).toThrow(/refuses password sessions/)
  })

  it('polls at least every 5 seconds', () => {
    expect(() => parse([...base, '--poll-seconds', '4'])).toThrow(OptionsError)
    expect(parse([...base, '--poll-seconds', '5']).pollSeconds).toBe(5)
  })

  it('validates the prompt delivery and the success status', () => {
    expect(() => parse([...base, '--prompt-via', 'file'])).toThrow(/stdin or arg/)
    expect(() => parse([...base, '--success-status', 'cancelled'])).toThrow(/in_review or done/)
    expect(parse([...base, '--success-status', 'done']).successStatus).toBe('done')
  })

  it('takes the agent command from flags, then the environment; per adapter overrides the shared one', () => {
    const fromEnv = parse(base, { SHOPFLOOR_AGENT_COMMAND: 'agent-x', SHOPFLOOR_AGENT_CLI_2_COMMAND: 'agent-y' })
    expect(fromEnv.agentCommands).toEqual({ agent_cli_1: 'agent-x', agent_cli_2: 'agent-y' })
    const fromFlag = parse([...base, '--agent-command', 'agent-z'], { SHOPFLOOR_AGENT_COMMAND: 'agent-x' })
    expect(fromFlag.agentCommands).toEqual({ agent_cli_1: 'agent-z', agent_cli_2: 'agent-z' })
  })

  it('a shared command given as a flag beats an adapter\'s command from the environment or the config file', () => {
    const file = path.join(tempDir('shopfloor-runner-file-'), 'runner.json')
    fs.writeFileSync(file, JSON.stringify({ agent_cli_1_command: 'from-file' }))
    const options = parse([...base, '--config', file, '--agent-command', 'from-flag'], { SHOPFLOOR_AGENT_CLI_2_COMMAND: 'from-env' })
    expect(options.agentCommands).toEqual({ agent_cli_1: 'from-flag', agent_cli_2: 'from-flag' })
    const fileOnly = parse([...base, '--config', file], { SHOPFLOOR_AGENT_COMMAND: 'shared-env' })
    expect(fileOnly.agentCommands).toEqual({ agent_cli_1: 'shared-env', agent_cli_2: 'shared-env' })
  })

  it('reads url, company, key and options from a config file', () => {
    const file = path.join(tempDir('shopfloor-runner-file-'), 'runner.json')
    fs.writeFileSync(file, JSON.stringify({ url: 'http://file.example.test', company: COMPANY, api_key: KEY, concurrency: 3, simulate: true }))
    const options = parseRunnerOptions(['--config', file], { HOME: '/nonexistent' }) as RunnerOptions
    expect(options).toMatchObject({ url: 'http://file.example.test', companyId: COMPANY, apiKey: KEY, concurrency: 3, simulate: true })
    expect(() => parseRunnerOptions(['--config', `${file}.missing`], {})).toThrow(/does not exist/)
  })
})
