// What the client prints for people: text from the server made safe for a terminal, tables
// aligned by display width, names instead of ids, counts in words; and the checks the client
// makes on its own arguments before asking the API.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../helpers.ts'
import { tempDir } from '../server-process.ts'
import { listeningApp, operator } from './in-process.ts'

let api: TestApp
let url: string
let close: () => Promise<void>
beforeAll(async () => {
  ;({ api, url, close } = await listeningApp())
})
afterAll(async () => {
  await close?.()
})

// Clears the screen, writes the clipboard (OSC 52), rings the bell, returns to the start of the
// line to overwrite it, and opens a C1 control sequence (CSI as one character).
// And reverses what follows (RLO, closed by PDI) where the terminal orders bidirectional text.
const HOSTILE = 'Evil\u001b[2J\u001b]52;c;cHduZWQ=\u0007\rX\u009b31m\u202exe.txt\u2069'
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

describe('text from the server', () => {
  it('reaches the terminal with its control characters shown, not acted on; --json keeps it exact', async () => {
    const op = await operator(api, url, 'ESC')
    const agent = await op.client.agents.hire(op.companyId, { name: `Agent ${HOSTILE}` })
    const task = await op.client.tasks.create(op.companyId, {
      title: `Title ${HOSTILE}`,
      description: `first line\r\nsecond\tline ${HOSTILE}`,
      assignee_agent_id: agent.id,
    })
    await op.client.comments.create(op.companyId, task.key, { body: `Body ${HOSTILE}` })
    const claimed = await op.client.runs.claim(op.companyId, { runner_id: 'r' })
    await op.client.runs.report(op.companyId, claimed!.run.id, { runner_id: 'r', status: 'succeeded', transcript: [{ text: `Said ${HOSTILE}` }] })

    const shown = 'Evil^[[2J^[]52;c;cHduZWQ=^G^MX\ufffd31m\ufffdxe.txt\ufffd'
    const outputs = {
      taskShow: await op.run('tasks', 'show', task.key),
      taskList: await op.run('tasks', 'list'),
      agentList: await op.run('agents', 'list'),
      runShow: await op.run('runs', 'show', claimed!.run.id),
      activity: await op.run('activity'),
      notFound: await op.run('agents', 'show', `Nobody ${HOSTILE}`),
    }
    for (const [name, out] of Object.entries(outputs)) {
      expect(CONTROL.test(out.stdout + out.stderr), name).toBe(false)
    }
    expect(outputs.taskShow.stdout).toContain(`${task.key}  Title ${shown}`)
    // A multi-line body keeps its lines and tabs; a CRLF line end is a plain newline.
    expect(outputs.taskShow.stdout).toContain(`first line\nsecond\tline ${shown}`)
    expect(outputs.taskShow.stdout).toContain(`: Body ${shown}`)
    expect(outputs.taskList.stdout).toContain(`Title ${shown}`)
    expect(outputs.agentList.stdout).toContain(`Agent ${shown}`)
    expect(outputs.runShow.stdout).toContain(`[agent] Said ${shown}`)
    expect(outputs.notFound.code).toBe(4)
    expect(outputs.notFound.stderr).toContain(`Agent not found: Nobody ${shown}`)

    const json = await op.run('tasks', 'show', task.key, '--json')
    expect(CONTROL.test(json.stdout.trimEnd())).toBe(false)
    const parsed = JSON.parse(json.stdout)
    expect(parsed.title).toBe(`Title ${HOSTILE}`)
    expect(parsed.comments[0].body).toBe(`Body ${HOSTILE}`)
  })
})

describe('tables', () => {
  it('align columns by display width: wide characters take 2 columns, combining marks none', async () => {
    const op = await operator(api, url, 'WID')
    // Display widths 6, 5 and 9; lengths in UTF-16 code units 3, 6 and 9.
    const names = { '设计师': 6, 'E\u0301mile': 5, '🚀 Rocket': 9 }
    for (const name of Object.keys(names)) await op.client.agents.hire(op.companyId, { name, title: 'Tab\tin title' })
    const lines = (await op.run('agents', 'list')).stdout.trimEnd().split('\n')
    // A tab, whose width depends on where it falls, is a space in a table.
    expect(lines[1]).toContain('Tab in title')
    const status = lines[0].indexOf('STATUS')
    for (const [name, width] of Object.entries(names)) {
      const line = lines.find((l) => l.startsWith(name))!
      // The status column starts where its header does, counted in terminal columns.
      expect(line.indexOf('idle') - (name.length - width), name).toBe(status)
    }
  })
})

describe('names instead of ids', () => {
  it('tasks show names the person who wrote a comment', async () => {
    const op = await operator(api, url, 'CMT')
    const task = await op.client.tasks.create(op.companyId, { title: 'Discussed' })
    await op.client.comments.create(op.companyId, task.key, { body: 'looks good' })
    const shown = (await op.run('tasks', 'show', task.key)).stdout
    expect(shown).toMatch(/^ {2}\d{4}-\d\d-\d\d \d\d:\d\d Operator CMT: looks good$/m)
  })
})

describe('finding agents and companies', () => {
  it('agents wake takes the start of an id; a shared name lists the matches and says what to type', async () => {
    const op = await operator(api, url, 'WAK')
    const agent = await op.client.agents.hire(op.companyId, { name: 'Sleeper' })
    const run = await op.json('agents', 'wake', agent.id.slice(0, 8))
    expect(run).toMatchObject({ agent_id: agent.id, status: 'queued' })
    expect((await op.json('agents', 'show', agent.id.slice(0, 6))).id).toBe(agent.id)

    const twins = [await op.client.agents.hire(op.companyId, { name: 'Twin' }), await op.client.agents.hire(op.companyId, { name: 'Twin' })]
    const ambiguous = await op.run('agents', 'wake', 'twin')
    expect(ambiguous.code).toBe(5)
    expect(ambiguous.stderr).toBe(
      `AMBIGUOUS: "twin" matches 2 agents: Twin (${twins[0].id.slice(0, 8)}), Twin (${twins[1].id.slice(0, 8)}). ` +
        'Type the id of the one you mean, or enough of its start to match only it\n',
    )
  })

  it('a company name held twice says "companies" and lists them', async () => {
    const op = await operator(api, url, 'DUA')
    const second = await op.client.companies.create({ name: 'Company DUA', task_prefix: 'DUB' })
    const out = await op.run('companies', 'use', 'company dua')
    expect(out.code).toBe(5)
    expect(out.stderr).toContain(`"company dua" matches 2 companies: Company DUA (DUA, ${op.companyId}), Company DUA (DUB, ${second.id}). Type the id of the one you mean\n`)
  })
})

describe('companies import', () => {
  it('refuses a FILE together with --template, and names the templates for an unknown one (exit code 4)', async () => {
    const op = await operator(api, url, 'IMP')
    const file = path.join(tempDir('shopfloor-cli-import-'), 'company.json')
    fs.writeFileSync(file, JSON.stringify(await op.client.companies.export(op.companyId)))
    const templates: { id: string }[] = await op.json('companies', 'templates')
    expect(templates.length).toBeGreaterThan(0)

    const both = await op.run('companies', 'import', file, '--template', templates[0].id)
    expect(both.code).toBe(2)
    expect(both.stderr).toMatch(/^USAGE_ERROR: Give a FILE or --template NAME, not both\n/)

    const unknown = await op.run('companies', 'import', '--template', 'no-such-template')
    expect(unknown.code).toBe(4)
    expect(unknown.stderr).toBe(`NOT_FOUND: No template "no-such-template"; the templates are: ${templates.map((t) => t.id).join(', ')}\n`)
    fs.rmSync(path.dirname(file), { recursive: true, force: true })
  })
})

describe('agents update', () => {
  it('with no option is a usage error, before any request (an unknown agent is not even looked up)', async () => {
    const op = await operator(api, url, 'UPD')
    await op.client.agents.hire(op.companyId, { name: 'Steady' })
    for (const ref of ['Steady', 'Nobody at all']) {
      const out = await op.run('agents', 'update', ref)
      expect(out.code).toBe(2)
      expect(out.stderr).toMatch(/^USAGE_ERROR: Nothing to change: give at least one option\n/)
      expect(out.stdout).toBe('')
    }
    expect((await op.run('agents', 'update', 'Steady', '--json')).code).toBe(2)
  })
})

describe('events --count', () => {
  it('refuses 0 and negative counts before connecting', async () => {
    const op = await operator(api, url, 'EVZ')
    for (const count of ['0', '-1']) {
      const out = await op.run('events', '--count', count)
      expect(out.code).toBe(2)
      expect(out.stderr).toMatch(/^USAGE_ERROR: --count must be 1 or more/)
    }
  }, 10_000)
})

describe('costs', () => {
  it('shows the spend by day', async () => {
    const op = await operator(api, url, 'CSD')
    const agent = await op.client.agents.hire(op.companyId, { name: 'Spender' })
    await op.client.tasks.create(op.companyId, { title: 'Paid work', assignee_agent_id: agent.id })
    const claimed = await op.client.runs.claim(op.companyId, { runner_id: 'r' })
    await op.client.runs.report(op.companyId, claimed!.run.id, { runner_id: 'r', status: 'succeeded', cost_cents: 250 })
    const costs = await op.json('costs')
    // Every day of the month from the API; the days with spend in the text.
    const spent = costs.by_day.filter((d: { cost_cents: number }) => d.cost_cents > 0)
    expect(spent).toEqual([{ date: new Date().toISOString().slice(0, 10), cost_cents: 250, plan_cents: 0 }])
    const text = (await op.run('costs')).stdout
    expect(text).toMatch(new RegExp(`By day\nDATE\\s+COST\n${spent[0].date}\\s+\\$2\\.50\n?$`))
  })
})

describe('activity --before', () => {
  it('takes a date (its start, UTC) or a full timestamp', async () => {
    const op = await operator(api, url, 'BEF')
    await op.client.tasks.create(op.companyId, { title: 'Logged' })
    const all: { created_at: string }[] = await op.json('activity')
    expect(all.length).toBeGreaterThan(1)
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)
    expect(await op.json('activity', '--before', tomorrow)).toHaveLength(all.length)
    expect(await op.json('activity', '--before', '2000-01-01')).toEqual([])
    expect(await op.json('activity', '--before', all[0].created_at)).toEqual(all.slice(1))
  })
})
