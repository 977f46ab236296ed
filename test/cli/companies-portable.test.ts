// `shopfloor companies export | import | templates` against a real API on a socket.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
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

it('exports the current company to a file and imports it as a new one under another name and prefix', async () => {
  const op = await operator(api, url, 'EXP')
  await op.json('agents', 'hire', 'Ada', '--title', 'CEO')
  await op.json('tasks', 'create', 'First task')
  const file = path.join(tempDir('shopfloor-export-'), 'company.json')
  const out = await op.run('companies', 'export', '--output', file)
  expect(out.code, out.stderr).toBe(0)
  expect(out.stdout).toContain(`to ${file}`)
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'))
  expect(doc).toMatchObject({ format: 'shopfloor.company', version: 1, company: { task_prefix: 'EXP' } })
  expect(doc.agents.map((a: any) => a.name)).toEqual(['Ada'])

  const printed = await op.run('companies', 'export')
  expect(JSON.parse(printed.stdout).tasks[0].title).toBe('First task')

  const imported = await op.json('companies', 'import', file, '--name', 'Copy', '--prefix', 'CPY', '--use')
  expect(imported).toMatchObject({ name: 'Copy', task_prefix: 'CPY', role: 'owner' })
  const task = await op.json('tasks', 'show', 'CPY-1')
  expect(task.title).toBe('First task')
})

it('lists the templates and imports one; a missing template or unreadable file fails with a message', async () => {
  const op = await operator(api, url, 'TPL')
  const list = await op.run('companies', 'templates')
  expect(list.code).toBe(0)
  expect(list.stdout).toMatch(/software-studio\s+Software Studio\s+5/)
  const studio = await op.json('companies', 'import', '--template', 'software-studio')
  expect(studio).toMatchObject({ name: 'Software Studio', task_prefix: 'DEV' })
  const agents = await op.client.agents.list(studio.id)
  expect(agents.map((a) => a.title)).toContain('Chief Technology Officer')

  const missing = await op.run('companies', 'import', '--template', 'nope')
  expect(missing.code).not.toBe(0)
  expect(missing.stderr).toContain('No template "nope"')
  const unreadable = await op.run('companies', 'import', '/no/such/file.json')
  expect(unreadable.code).not.toBe(0)
  expect(unreadable.stderr).toContain('Could not read /no/such/file.json')
})
