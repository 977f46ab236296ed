// `shopfloor events` with the real executable: it follows the live stream and prints each
// event; a company the caller is not in stops it with exit code 4.
import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { BIN, ROOT } from '../server-process.ts'
import { type CliWorld, signedInHome, startWorld } from './harness.ts'

// Each test starts several processes (about a second each, more on a busy machine).
vi.setConfig({ testTimeout: 180_000 })

let world: CliWorld
beforeAll(async () => {
  world = await startWorld()
})
afterAll(async () => {
  await world?.stop()
})

/** Starts `shopfloor events ...` and resolves once it reports the connection on stderr. */
async function follow(home: string, args: string[]) {
  const child = spawn(process.execPath, [BIN, 'events', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: home, SHOPFLOOR_URL: world.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve))
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (d) => {
      stderr += d
      if (stderr.includes('connected to')) resolve()
    })
    child.once('close', () => reject(new Error(`events exited early: ${stderr}`)))
  })
  return { exited, stdout: () => stdout, stderr: () => stderr }
}

describe('shopfloor events', () => {
  it('prints each event as a JSON line with --json and stops after --count', async () => {
    const { home, account, companyId } = await signedInHome(world, 'EVT')
    const stream = await follow(home, ['--json', '--count', '2'])
    const task = await account.client.tasks.create(companyId, { title: 'Announced' })
    await account.client.comments.create(companyId, task.key, { body: 'hello' })
    expect(await stream.exited).toBe(0)
    const lines = stream.stdout().trim().split('\n').map((l) => JSON.parse(l))
    expect(lines).toEqual([
      { type: 'task.created', id: task.id },
      { type: 'task.commented', id: task.id },
    ])
  })

  it('prints no more than --count events when more arrive together', async () => {
    const { home, account, companyId } = await signedInHome(world, 'EVC')
    const agent = await account.client.agents.hire(companyId, { name: 'Busy' })
    const stream = await follow(home, ['--json', '--count', '1'])
    // One write, two events (task.created and run.created), delivered in one chunk.
    const task = await account.client.tasks.create(companyId, { title: 'Two at once', assignee_agent_id: agent.id })
    expect(await stream.exited).toBe(0)
    expect(stream.stdout().trim().split('\n').map((l) => JSON.parse(l))).toEqual([{ type: 'task.created', id: task.id }])
  })

  it('prints a readable line per event by default, agents by name, tasks by key, runs by the start of the id', async () => {
    const { home, account, companyId } = await signedInHome(world, 'EVH')
    const stream = await follow(home, ['--count', '3'])
    const agent = await account.client.agents.hire(companyId, { name: 'Listener' })
    await account.client.tasks.create(companyId, { title: 'Heard', assignee_agent_id: agent.id })
    expect(await stream.exited).toBe(0)
    const [run] = await account.client.runs.list(companyId)
    const at = '\\d{2}:\\d{2}:\\d{2}'
    expect(stream.stdout()).toMatch(new RegExp(
      `^${at} {2}agent\\.created {2}Listener\\n${at} {2}task\\.created {2}EVH-1\\n${at} {2}run\\.created {2}${run.id.slice(0, 8)} {2}agent=Listener\\n$`,
    ))
  })

  it('stops with NOT_FOUND and exit code 4 for a company the caller is not in', async () => {
    const { home } = await signedInHome(world, 'EVA')
    const other = await signedInHome(world, 'EVB')
    const result = await world.run(['events', '--company', other.companyId], { home })
    expect(result.code).toBe(4)
    expect(result.stderr).toMatch(/^NOT_FOUND: Company not found/)
  })
})
