// `shopfloor members`, `shopfloor invitations` and `shopfloor runners`, in process against
// the API on a socket whose invitation emails go to a real SMTP server.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runClient } from '../../src/cli/client-main.ts'
import { ShopfloorClient } from '../../src/client/index.ts'
import { startSmtpSink, type SmtpSink } from '../accounts/smtp-sink.ts'
import { createUser, type TestApp, testApp, type TestUser } from '../helpers.ts'
import { tempDir } from '../server-process.ts'
import { type Operator, operator } from './in-process.ts'

let api: TestApp
let url: string
let smtp: SmtpSink
const homes: string[] = []

beforeAll(async () => {
  smtp = await startSmtpSink({ user: 'mailer', password: 'secret' })
  api = await testApp({
    webAppUrl: 'https://app.shopfloor.test',
    smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: 'mailer', password: 'secret', from: 'no-reply@shopfloor.test' },
  })
  url = await api.app.listen({ host: '127.0.0.1', port: 0 })
})
afterAll(async () => {
  await api?.close()
  await smtp?.close()
  for (const home of homes) fs.rmSync(home, { recursive: true, force: true })
})

/** `shopfloor` as a signed-in user with no company chosen yet. */
function as(user: TestUser) {
  const home = tempDir('shopfloor-cli-home-')
  homes.push(home)
  const file = path.join(home, '.config', 'shopfloor', 'config.json')
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, JSON.stringify({ url, servers: { [url]: { access_token: user.token } } }))
  return async (...args: string[]) => {
    let stdout = ''
    let stderr = ''
    const code = await runClient(args, { HOME: home }, { out: (t) => (stdout += `${t}\n`), err: (t) => (stderr += `${t}\n`) })
    return { code, stdout, stderr }
  }
}

async function link(email: string): Promise<string> {
  const mail = await smtp.mailTo(email)
  return /https:\/\/app\.shopfloor\.test\/invitations\/accept\?token=[A-Za-z0-9_-]+/.exec(mail.text)![0]
}

describe('invitations and members', () => {
  let op: Operator
  let invitee: TestUser
  beforeAll(async () => {
    op = await operator(api, url, 'PPL')
    invitee = await createUser(api.ctx, 'Ivy Invitee')
  })

  it('invites by email, lists the pending invitation, and the invitee joins with the emailed link', async () => {
    const created = await op.run('invitations', 'create', invitee.email, '--role', 'admin')
    expect(created.code).toBe(0)
    expect(created.stdout).toMatch(new RegExp(`^Invited ${invitee.email} as admin; the link was emailed and works until \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC`))
    const list = await op.run('invitations', 'list')
    expect(list.stdout.split('\n')[0]).toMatch(/^EMAIL\s+ROLE\s+INVITED BY\s+SENT\s+EXPIRES$/)
    expect(list.stdout).toMatch(new RegExp(`${invitee.email}\\s+admin\\s+Operator PPL\\s+\\d{4}-`))

    const run = as(invitee)
    const joined = await run('invitations', 'accept', await link(invitee.email))
    expect(joined).toMatchObject({ code: 0, stdout: 'Joined Company PPL (PPL) as admin\n' })
    // The company joined becomes the current one when none was chosen.
    expect((await run('members', 'list')).stdout).toMatch(/Ivy Invitee\s+\S+\s+admin\s+\d{4}-\d\d-\d\d/)
    expect(await op.json('invitations', 'list')).toEqual([])
  })

  it('changes a role and removes a member by name or email; owners cannot be changed (exit 3)', async () => {
    const other = await createUser(api.ctx, 'Otto Other')
    await op.client.invitations.create(op.companyId, { email: other.email, role: 'member' })
    // Just the token, as someone may paste it: it never starts with "-", which would read as an option.
    const token = (await link(other.email)).split('token=')[1]
    expect(token).toMatch(/^inv_/)
    const accepted = await as(other)('invitations', 'accept', token)
    expect(accepted, accepted.stderr).toMatchObject({ code: 0 })

    const changed = await op.run('members', 'role', 'otto other', 'admin')
    expect(changed).toMatchObject({ code: 0, stdout: `Otto Other <${other.email}> is now admin\n` })
    const owner = await op.run('members', 'role', 'Operator PPL', 'member')
    expect(owner.code).toBe(3)
    expect(owner.stderr).toMatch(/^FORBIDDEN: .*nobody changes or removes an owner/)
    const bad = await op.run('members', 'role', other.email, 'boss')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/^USAGE_ERROR: the role must be one of owner, admin, member/)

    expect((await op.run('members', 'remove', other.email.toUpperCase(), '--yes')).stdout).toBe(`Removed Otto Other <${other.email}>\n`)
    expect((await op.json('members', 'list')).map((m: any) => m.name)).not.toContain('Otto Other')
    const gone = await op.run('members', 'remove', other.email, '--yes')
    expect(gone.code).toBe(4)
    expect(gone.stderr).toBe(`NOT_FOUND: Member not found: ${other.email}\n`)
  })

  it('revokes a pending invitation by email', async () => {
    await op.client.invitations.create(op.companyId, { email: 'later@example.test', role: 'member' })
    expect((await op.run('invitations', 'revoke', 'LATER@example.test', '--yes')).stdout).toBe('Revoked the invitation of later@example.test\n')
    expect((await op.run('invitations', 'revoke', 'later@example.test', '--yes')).code).toBe(4)
  })
})

describe('runners', () => {
  it('lists runners with status, adapters, versions and what they run, by agent name and task key', async () => {
    const op = await operator(api, url, 'RNS')
    expect((await op.run('runners', 'list')).stdout).toBe('(no runner heard from in the last 24 hours)\n')
    const agent = await op.client.agents.hire(op.companyId, { name: 'Ada', adapter: 'agent_cli_1' })
    await op.client.tasks.create(op.companyId, { title: 'Work', assignee_agent_id: agent.id })
    await op.client.runs.claim(op.companyId, { runner_id: 'box-1', adapters: ['agent_cli_1'], versions: { claude: '2.0.14' } })
    await op.client.runs.claim(op.companyId, { runner_id: 'sim' })
    const out = (await op.run('runners', 'list')).stdout.split('\n')
    expect(out[0]).toMatch(/^RUNNER\s+STATUS\s+LAST SEEN\s+ADAPTERS\s+VERSIONS\s+RUNNING$/)
    expect(out).toContainEqual(expect.stringMatching(/^box-1\s+online\s+just now\s+agent_cli_1\s+claude 2\.0\.14\s+Ada on RNS-1$/))
    expect(out).toContainEqual(expect.stringMatching(/^sim\s+online\s+just now\s+all \(simulated\)\s+-\s+idle$/))
    // The dashboard names the active run's agent, task and runner.
    expect((await op.run('dashboard')).stdout).toContain('Active runs: Ada on RNS-1 (running on box-1)')
  })
})
