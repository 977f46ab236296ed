// Signing in and out with the real executable: the config file, token refresh, API keys,
// choosing the server, and the exit codes of authentication failures.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { BIN, freePort, ROOT } from '../server-process.ts'
import { type CliWorld, configFile, newHome, register, startWorld } from './harness.ts'

// Each test starts several processes (about a second each, more on a busy machine).
vi.setConfig({ testTimeout: 180_000 })

let world: CliWorld
beforeAll(async () => {
  world = await startWorld()
})
afterAll(async () => {
  await world?.stop()
})

function readConfig(home: string) {
  return JSON.parse(fs.readFileSync(configFile(home), 'utf8'))
}

describe('shopfloor login', () => {
  it('signs in with --email and --password-stdin and keeps the session in a 0600 config file', async () => {
    const account = await register(world.url, 'Lee Login')
    const home = newHome()
    const result = await world.run(['login', '--email', account.email, '--password-stdin'], { home, input: `${account.password}\n` })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`as Lee Login <${account.email}>`)
    expect(fs.statSync(configFile(home)).mode & 0o777).toBe(0o600)
    const profile = readConfig(home).servers[world.url]
    expect(profile.access_token).toEqual(expect.any(String))
    expect(profile.refresh_token).toEqual(expect.any(String))
    expect(readConfig(home).url).toBe(world.url)

    // The saved server is the default: no SHOPFLOOR_URL needed afterwards.
    const who = await world.run(['whoami', '--json'], { home, env: { SHOPFLOOR_URL: '' } })
    expect(who.code).toBe(0)
    expect(JSON.parse(who.stdout)).toMatchObject({ email: account.email, name: 'Lee Login', via: 'session', url: world.url })
  })

  it('answers a wrong password with INVALID_CREDENTIALS on stderr and exit code 3, saving nothing', async () => {
    const account = await register(world.url)
    const home = newHome()
    const result = await world.run(['login', '--email', account.email, '--password-stdin'], { home, input: 'wrong-password\n' })
    expect(result.code).toBe(3)
    expect(result.stderr).toMatch(/^INVALID_CREDENTIALS: /)
    expect(result.stdout).toBe('')
    expect(fs.existsSync(configFile(home))).toBe(false)
  })

  it('prompts on a terminal for the email and a password that is not echoed', async () => {
    const account = await register(world.url, 'Tess Terminal')
    const home = newHome()
    // `script` gives the command a pseudo-terminal; answers are typed when the prompts appear.
    const child = spawn('script', ['-qec', `${process.execPath} ${BIN} login`, '/dev/null'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: home, SHOPFLOOR_URL: world.url },
    })
    let screen = ''
    const answers: [string, string][] = [
      ['Email: ', `${account.email}\r`],
      ['Password: ', `${account.password}\r`],
    ]
    child.stdout.on('data', (d) => {
      screen += d
      const next = answers[0]
      if (next && screen.includes(next[0])) child.stdin.write(answers.shift()![1])
    })
    const code = await new Promise((resolve) => child.once('close', resolve))
    expect(code).toBe(0)
    expect(screen).toContain('as Tess Terminal')
    expect(screen).not.toContain(account.password)
    expect(readConfig(home).servers[world.url].email).toBe(account.email)
  })

  it('refuses to prompt without a terminal (exit code 1)', async () => {
    const result = await world.run(['login'], { home: newHome() })
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^USAGE_ERROR: Not a terminal/)
  })

  it('uses $XDG_CONFIG_HOME when it is set', async () => {
    const account = await register(world.url)
    const home = newHome()
    const xdg = path.join(home, 'xdg')
    const result = await world.run(['login', '--email', account.email, '--password-stdin'], {
      home,
      input: account.password,
      env: { XDG_CONFIG_HOME: xdg },
    })
    expect(result.code).toBe(0)
    expect(fs.existsSync(path.join(xdg, 'shopfloor', 'config.json'))).toBe(true)
    expect(fs.existsSync(configFile(home))).toBe(false)
  })

  it('picks the only company as the current one', async () => {
    const account = await register(world.url)
    const company = await account.client.companies.create({ name: 'Solo', task_prefix: 'SOLO' })
    const home = newHome()
    const login = await world.run(['login', '--email', account.email, '--password-stdin', '--json'], { home, input: account.password })
    expect(JSON.parse(login.stdout)).toMatchObject({ company_id: company.id, user: { email: account.email } })
    expect(readConfig(home).servers[world.url].company_id).toBe(company.id)
  })

  it('drops the current company of an account signed in before when the new one is not a member', async () => {
    const first = await register(world.url)
    const second = await register(world.url)
    const mine = await first.client.companies.create({ name: 'First Co', task_prefix: 'FST' })
    await first.client.companies.create({ name: 'Also First', task_prefix: 'FS2' })
    const only = await second.client.companies.create({ name: 'Second Co', task_prefix: 'SND' })
    const home = newHome()
    await world.run(['login', '--email', first.email, '--password-stdin'], { home, input: first.password })
    expect((await world.run(['companies', 'use', mine.id], { home })).code).toBe(0)
    // Another account with exactly one company: that one becomes current.
    const login = await world.run(['login', '--email', second.email, '--password-stdin', '--json'], { home, input: second.password })
    expect(JSON.parse(login.stdout)).toMatchObject({ company_id: only.id })
    expect(readConfig(home).servers[world.url]).toMatchObject({ company_id: only.id, company_name: 'Second Co' })
    // Back to the first account, with two companies: none is current until one is chosen.
    const back = await world.run(['login', '--email', first.email, '--password-stdin', '--json'], { home, input: first.password })
    expect(JSON.parse(back.stdout).company_id).toBe(null)
    expect(readConfig(home).servers[world.url].company_id).toBeUndefined()
  })
})

describe('token refresh', () => {
  it('refreshes a refused access token once, retries, and saves the new token', async () => {
    const account = await register(world.url)
    const home = newHome()
    await world.run(['login', '--email', account.email, '--password-stdin'], { home, input: account.password })
    const config = readConfig(home)
    config.servers[world.url].access_token = 'not-a-valid-token'
    fs.writeFileSync(configFile(home), JSON.stringify(config))

    const who = await world.run(['whoami', '--json'], { home })
    expect(who.code).toBe(0)
    expect(JSON.parse(who.stdout).email).toBe(account.email)
    const saved = readConfig(home).servers[world.url]
    expect(saved.access_token).not.toBe('not-a-valid-token')
    expect(saved.refresh_token).toBe(config.servers[world.url].refresh_token)
    // The new token works on its own.
    expect((await world.run(['whoami'], { home })).code).toBe(0)
  })

  it('forgets the session when the refresh token is refused too (exit code 3)', async () => {
    const account = await register(world.url)
    const home = newHome()
    await world.run(['login', '--email', account.email, '--password-stdin'], { home, input: account.password })
    const config = readConfig(home)
    Object.assign(config.servers[world.url], { access_token: 'bad', refresh_token: 'also-bad' })
    fs.writeFileSync(configFile(home), JSON.stringify(config))

    const who = await world.run(['whoami'], { home })
    expect(who.code).toBe(3)
    expect(who.stderr).toMatch(/^INVALID_TOKEN: /)
    expect(who.stderr).toContain('shopfloor login')
    expect(readConfig(home).servers[world.url].access_token).toBeUndefined()
  })
})

describe('shopfloor logout', () => {
  it('ends the session on the server and forgets the tokens', async () => {
    const account = await register(world.url)
    const home = newHome()
    await world.run(['login', '--email', account.email, '--password-stdin'], { home, input: account.password })
    const refreshToken = readConfig(home).servers[world.url].refresh_token

    const out = await world.run(['logout'], { home })
    expect(out.code).toBe(0)
    expect(out.stdout).toContain('Logged out')
    expect(readConfig(home).servers[world.url]).not.toHaveProperty('access_token')
    // The server revoked the session's refresh token.
    const refresh = await fetch(`${world.url}/api/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: refreshToken }),
    })
    expect(refresh.status).toBe(401)

    const who = await world.run(['whoami'], { home })
    expect(who.code).toBe(3)
    expect(who.stderr).toMatch(/^AUTH_REQUIRED: Not authenticated/)
  })
})

describe('API keys from SHOPFLOOR_API_KEY', () => {
  it('authenticates unattended commands with the key, which cannot manage keys (exit code 3)', async () => {
    const account = await register(world.url, 'Kim Key')
    const { key } = await account.client.apiKeys.create({ name: 'ci' })
    const home = newHome()
    const who = await world.run(['whoami', '--json'], { home, env: { SHOPFLOOR_API_KEY: key } })
    expect(who.code).toBe(0)
    expect(JSON.parse(who.stdout)).toMatchObject({ name: 'Kim Key', via: 'key' })

    const create = await world.run(['keys', 'create', 'another'], { home, env: { SHOPFLOOR_API_KEY: key } })
    expect(create.code).toBe(3)
    expect(create.stderr).toMatch(/^SESSION_REQUIRED: /)

    const bad = await world.run(['whoami'], { home, env: { SHOPFLOOR_API_KEY: 'svc_live_nottherightkeynottherightkey00' } })
    expect(bad.code).toBe(3)
    expect(bad.stderr).toMatch(/^INVALID_TOKEN: /)
  })
})

describe('server address', () => {
  it('prefers --url over SHOPFLOOR_URL; an unreachable server is NETWORK_ERROR with exit code 1 after retries', async () => {
    const account = await register(world.url)
    const home = newHome()
    await world.run(['login', '--email', account.email, '--password-stdin'], { home, input: account.password })
    const closed = `http://127.0.0.1:${await freePort()}`
    const started = Date.now()
    const result = await world.run(['whoami', '--url', closed], { home })
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(new RegExp(`^NETWORK_ERROR: Cannot reach ${closed}`))
    // Three retries with backoff (0.5 + 1 + 2 seconds) before giving up.
    expect(Date.now() - started).toBeGreaterThan(3000)
  })
})
