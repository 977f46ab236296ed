import fs from 'node:fs'
import os from 'node:os'
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
      flushSeconds: 2, flushChars: 4096, killAfterSeconds: 5, runTimeoutSeconds: 7200, backoffScale: 1, simulate: false, promptVia: 'stdin', successStatus: 'in_review',
      agentCommand: null, allowAgentCommands: false, passEnv: [], allowAgentEnv: [], agentHomes: null, agentIds: [],
      cliCommands: { agent_cli_1: null, agent_cli_2: null, agent_cli_3: null, agent_cli_4: null, agent_cli_5: null },
    })
  })

  it('is named <user>@<host> unless told otherwise: readable, and the same after a restart', () => {
    const named = parse(base).runnerId
    expect(named).toBe(`${os.userInfo().username}@${os.hostname()}`)
    expect(named).not.toContain(String(process.pid))
    expect(parse(base).runnerId).toBe(named)
    expect(parse([...base, '--runner-id', 'studio-1']).runnerId).toBe('studio-1')
  })

  it('needs an API key, and refuses a password session token', () => {
    expect(() => parse(base, { SHOPFLOOR_API_KEY: '' })).toThrow(/no API key/)
    expect(() => parse(base, { SHOPFLOOR_API_KEY: 'eyJhbGciOiJIUzI1NiJ9.e30.sig' })).toThrow(/refuses password sessions/)
  })

  it('reads the key from --api-key-file before the environment, and says when the file cannot be read', () => {
    const file = path.join(tempDir('shopfloor-runner-key-'), 'runner.key')
    fs.writeFileSync(file, `${KEY.replace('abc', 'xyz')}\n`)
    expect(parse([...base, '--api-key-file', file])).toMatchObject({ apiKey: KEY.replace('abc', 'xyz'), apiKeyFile: file })
    expect(() => parse([...base, '--api-key-file', `${file}.missing`])).toThrow(/cannot read the API key file .*runner\.key\.missing/)
    // The key handed over by the process that read it wins over anything the environment still says.
    expect((parseRunnerOptions(base, { SHOPFLOOR_API_KEY: '' }, KEY) as RunnerOptions).apiKey).toBe(KEY)
  })

  it('confines agents by default; --no-sandbox, --agent-network, --agent-read, --agent-write and --bwrap change how', () => {
    const config = tempDir('shopfloor-runner-options-')
    expect(parseRunnerOptions(base, { XDG_CONFIG_HOME: config, SHOPFLOOR_API_KEY: KEY })).toMatchObject({
      noSandbox: false, agentNetwork: true, agentRead: [], agentWrite: [], bwrap: 'bwrap', configDir: path.join(config, 'shopfloor'), configFile: null, apiKeyFile: null,
    })
    expect(parse([...base, '--no-sandbox', '--agent-network', 'off', '--agent-read', 'tools', '--agent-write', '/srv/scratch', '--bwrap', '/opt/bwrap'])).toMatchObject({
      noSandbox: true, agentNetwork: false, agentRead: [path.resolve('tools')], agentWrite: ['/srv/scratch'], bwrap: '/opt/bwrap',
    })
    expect(parse(base, { SHOPFLOOR_AGENT_NETWORK: 'off' }).agentNetwork).toBe(false)
    expect(() => parse([...base, '--agent-network', 'none'])).toThrow(/--agent-network must be on or off/)
  })

  it('polls at least every 5 seconds', () => {
    expect(() => parse([...base, '--poll-seconds', '4'])).toThrow(OptionsError)
    expect(parse([...base, '--poll-seconds', '5']).pollSeconds).toBe(5)
  })

  it('scales the waits between attempts by --backoff-scale (or backoff_scale in the config file), above zero', () => {
    expect(parse([...base, '--backoff-scale', '0.05']).backoffScale).toBe(0.05)
    const file = path.join(tempDir('shopfloor-runner-file-'), 'runner.json')
    fs.writeFileSync(file, JSON.stringify({ backoff_scale: 2 }))
    expect(parse([...base, '--config', file]).backoffScale).toBe(2)
    expect(parse([...base, '--config', file, '--backoff-scale', '0.5']).backoffScale).toBe(0.5)
    expect(() => parse([...base, '--backoff-scale', '0'])).toThrow(/--backoff-scale must be a number of at least 0.01/)
    expect(() => parse([...base, '--backoff-scale', 'fast'])).toThrow(OptionsError)
  })

  it('validates the prompt delivery and the success status', () => {
    expect(() => parse([...base, '--prompt-via', 'file'])).toThrow(/stdin or arg/)
    expect(() => parse([...base, '--success-status', 'cancelled'])).toThrow(/in_review or done/)
    expect(parse([...base, '--success-status', 'done']).successStatus).toBe('done')
  })

  it('takes the process command and each CLI executable from flags, then the environment, then the config file', () => {
    const file = path.join(tempDir('shopfloor-runner-file-'), 'runner.json')
    fs.writeFileSync(file, JSON.stringify({ agent_command: 'from-file', agent_cli_3_command: '/file/gemini', agent_cli_5_command: '/file/cursor-agent' }))
    const options = parse([...base, '--config', file, '--agent-cli-1-command', '/flag/claude'],
      { SHOPFLOOR_AGENT_COMMAND: 'from-env', SHOPFLOOR_AGENT_CLI_1_COMMAND: '/env/claude', SHOPFLOOR_AGENT_CLI_3_COMMAND: '/env/gemini' })
    expect(options.agentCommand).toBe('from-env')
    expect(options.cliCommands).toEqual({ agent_cli_1: '/flag/claude', agent_cli_2: null, agent_cli_3: '/env/gemini', agent_cli_4: null, agent_cli_5: '/file/cursor-agent' })
    expect(parse([...base, '--config', file, '--agent-command', 'from-flag'], { SHOPFLOOR_AGENT_COMMAND: 'from-env' }).agentCommand).toBe('from-flag')
  })

  it('reads --allow-agent-commands, --pass-env, --allow-agent-env and --agent-homes', () => {
    const options = parse([...base, '--allow-agent-commands', '--pass-env', 'GITHUB_TOKEN', '--pass-env', 'NPM_TOKEN', '--agent-homes', '/var/agents'])
    expect(options).toMatchObject({ allowAgentCommands: true, passEnv: ['GITHUB_TOKEN', 'NPM_TOKEN'], agentHomes: '/var/agents' })
    expect(parse(base, { SHOPFLOOR_PASS_ENV: 'A,B', SHOPFLOOR_AGENT_HOMES: '/homes' })).toMatchObject({ passEnv: ['A', 'B'], agentHomes: '/homes' })
    expect(() => parse([...base, '--pass-env', 'NOT-A-NAME'])).toThrow(/names of variables/)
    // What agents' own settings may name: names and prefixes, by flag, variable or file.
    expect(parse([...base, '--allow-agent-env', 'GITHUB_TOKEN', '--allow-agent-env', 'AWS_*']).allowAgentEnv).toEqual(['GITHUB_TOKEN', 'AWS_*'])
    expect(parse(base, { SHOPFLOOR_ALLOW_AGENT_ENV: 'A, B_*' }).allowAgentEnv).toEqual(['A', 'B_*'])
    const file = path.join(tempDir('shopfloor-runner-file-'), 'runner.json')
    fs.writeFileSync(file, JSON.stringify({ allow_agent_env: ['*'] }))
    expect(parse([...base, '--config', file]).allowAgentEnv).toEqual(['*'])
    expect(() => parse([...base, '--allow-agent-env', 'A*B'])).toThrow(/--allow-agent-env takes names of variables or prefixes ending in \*, got "A\*B"/)
  })

  it('reads url, company, key and options from a config file', () => {
    const file = path.join(tempDir('shopfloor-runner-file-'), 'runner.json')
    fs.writeFileSync(file, JSON.stringify({ url: 'http://file.example.test', company: COMPANY, api_key: KEY, concurrency: 3, simulate: true }))
    const options = parseRunnerOptions(['--config', file], { HOME: '/nonexistent' }) as RunnerOptions
    expect(options).toMatchObject({ url: 'http://file.example.test', companyId: COMPANY, apiKey: KEY, concurrency: 3, simulate: true })
    expect(() => parseRunnerOptions(['--config', `${file}.missing`], {})).toThrow(/does not exist/)
  })
})
