import { execFile } from 'node:child_process'
import fs from 'node:fs'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { userCommands } from '../../src/cli/admin-users.ts'
import { migrate } from '../../src/server/db/migrate.ts'
import { openPglite } from '../../src/server/db/pglite.ts'
import { call, embeddedDataDir, type TestApp, testApp, uniqueEmail } from '../helpers.ts'
import { signUp } from './support.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

/** Runs a user command against the test database and returns its exit code and output. */
async function admin(action: 'deactivate' | 'activate', ...args: string[]) {
  const lines: string[] = []
  const code = await userCommands[action](t.ctx.db, args, (line) => lines.push(line))
  return { code, lines }
}

describe('admin users deactivate|activate', () => {
  it('a deactivated account cannot sign in and none of its credentials work; activation restores them', async () => {
    const a = await signUp(t.app)
    const key = (await call(t.app, 'POST', '/api/me/api-keys', { token: a.access, body: { name: 'k' } })).body.key

    expect(await admin('deactivate', a.email.toUpperCase())).toEqual({ code: 0, lines: [`${a.email}: deactivated`] })

    const login = await call(t.app, 'POST', '/api/login', { body: { email: a.email, password: a.password } })
    expect(login.status).toBe(400)
    expect(login.body.error.code).toBe('ACCOUNT_INACTIVE')
    // A wrong password still answers like any wrong password: the state is not told to strangers.
    expect((await call(t.app, 'POST', '/api/login', { body: { email: a.email, password: 'not the password' } })).body.error.code).toBe(
      'INVALID_CREDENTIALS',
    )
    for (const token of [a.access, key]) {
      const r = await call(t.app, 'GET', '/api/me', { token })
      expect(r.status).toBe(401)
      expect(r.body.error.code).toBe('INVALID_TOKEN')
    }
    expect((await call(t.app, 'POST', '/api/refresh', { body: { refresh_token: a.refresh } })).body.error.code).toBe('INVALID_REFRESH_TOKEN')

    expect(await admin('activate', a.email)).toEqual({ code: 0, lines: [`${a.email}: active`] })
    expect((await call(t.app, 'POST', '/api/login', { body: { email: a.email, password: a.password } })).status).toBe(200)
    expect((await call(t.app, 'GET', '/api/me', { token: key })).status).toBe(200)
    expect((await call(t.app, 'POST', '/api/refresh', { body: { refresh_token: a.refresh } })).status).toBe(200)
  })

  it('says so when there is nothing to change', async () => {
    const a = await signUp(t.app)
    expect((await admin('activate', a.email)).lines).toEqual([`${a.email}: already active`])
    await admin('deactivate', a.email)
    expect((await admin('deactivate', a.email)).lines).toEqual([`${a.email}: already deactivated`])
  })

  it('fails for an unknown email or a missing argument', async () => {
    await expect(admin('deactivate', uniqueEmail('nobody'))).rejects.toThrow(/no account with email/)
    await expect(admin('deactivate')).rejects.toThrow(/usage/)
  })
})

describe('the shopfloor executable', () => {
  it('`shopfloor admin users deactivate EMAIL` acts on the embedded database in DATA_DIR', async () => {
    const dataDir = embeddedDataDir()
    const email = uniqueEmail('cli')
    try {
      const db = await openPglite(dataDir)
      await migrate(db)
      await db.query(`INSERT INTO users (email, name, password_hash) VALUES ($1, 'Cli', 'x')`, [email])
      await db.close()

      const { DATABASE_URL: _ignored, ...env } = process.env
      const run = (...args: string[]) =>
        promisify(execFile)(process.execPath, ['bin/shopfloor.js', 'admin', 'users', ...args], {
          env: { ...env, DATA_DIR: dataDir, ENVIRONMENT: 'test', LOG_LEVEL: 'silent' },
          timeout: 60_000,
        })
      const done = await run('deactivate', email, '--yes')
      expect(done.stdout.trim()).toBe(`${email}: deactivated`)

      const check = await openPglite(dataDir)
      expect(await check.one('SELECT is_active FROM users WHERE email = $1', [email])).toEqual({ is_active: false })
      await check.close()
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
