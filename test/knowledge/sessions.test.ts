// Session continuity with kept agent homes, through real runner processes and the Claude Code
// stand-in: the next run of an agent on the same task resumes its session and its transcript
// says so; a session kept on another runner's machine is not asked for (the CLI would fail the
// run): the run starts a new session and says why.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../../src/client/index.ts'
import { tempDir } from '../server-process.ts'
import {
  makeWorkspace, planDescription, type RunnerProcess, type StandIns, standIns, startRunner, sharedTestServer, type TestServer, waitFor, type Workspace,
} from '../runner/harness.ts'

let server: TestServer
let ws: Workspace
let clis: StandIns
let runner: RunnerProcess | null = null

beforeAll(async () => {
  server = await sharedTestServer()
  ws = await makeWorkspace(server.url)
  clis = standIns(['claude'])
})
afterAll(async () => {
  await runner?.stop()
  await server?.close()
})

async function startOn(homes: string, id: string) {
  await runner?.stop()
  runner = startRunner(
    ['--url', server.url, '--company', ws.companyId, '--runner-id', id, '--heartbeat-seconds', '1', '--poll-seconds', '5', '--flush-seconds', '0.2', '--agent-homes', homes],
    { SHOPFLOOR_API_KEY: ws.apiKey, PATH: `${clis.bin}:${process.env.PATH}`, ANTHROPIC_API_KEY: 'sk-ant-test' },
  )
}

async function finished(runId: string): Promise<Run> {
  return waitFor(async () => {
    const run = await ws.client.runs.get(ws.companyId, runId)
    return ['succeeded', 'failed'].includes(run.status) ? run : null
  }, 30_000)
}

const system = (run: Run) => (run.transcript ?? []).filter((e) => e.role === 'system').map((e) => e.text).join('')

describe('session continuity', () => {
  it('resumes the session of the last run on the task, and starts a new one where that session is not kept', async () => {
    await startOn(tempDir('shopfloor-homes-a-'), 'runner-a')
    const agent = await ws.client.agents.hire(ws.companyId, { name: 'Resumer', adapter: 'agent_cli_1' })
    const task = await ws.client.tasks.create(ws.companyId, { title: 'Long work', description: planDescription({ reply: 'step done' } as any), assignee_agent_id: agent.id })
    const [queued] = await ws.client.runs.list(ws.companyId, { task_id: task.id })
    const first = await finished(queued.id)
    expect(first.status).toBe('succeeded')
    expect(system(first)).not.toContain('session of run')

    const second = await finished((await ws.client.agents.wake(ws.companyId, agent.id, { task_id: task.id })).id)
    expect(second.status).toBe('succeeded')
    expect(system(second)).toContain(`Continues the session of run ${first.id}.`)
    const seen = clis.seen(second.id)
    expect(seen.argv.slice(seen.argv.indexOf('--resume'), seen.argv.indexOf('--resume') + 2)).toEqual(['--resume', first.session_id])

    // Another runner, another machine's homes: the session is not there.
    await startOn(tempDir('shopfloor-homes-b-'), 'runner-b')
    const third = await finished((await ws.client.agents.wake(ws.companyId, agent.id, { task_id: task.id })).id)
    expect(third.status).toBe('succeeded')
    expect(system(third)).toContain(`The session of run ${second.id} is not kept on this runner (it ran elsewhere, or its home was cleared): starting a new session.`)
    expect(clis.seen(third.id).argv).not.toContain('--resume')

    // A person asks for a new session: the one the third run made here is not resumed.
    const fourth = await finished((await ws.client.agents.wake(ws.companyId, agent.id, { task_id: task.id, fresh_session: true })).id)
    expect(fourth.status).toBe('succeeded')
    expect(system(fourth)).toContain(`A new session, as asked: the session of run ${third.id} is not resumed.`)
    expect(clis.seen(fourth.id).argv).not.toContain('--resume')
    // And the next run resumes the new one.
    const fifth = await finished((await ws.client.agents.wake(ws.companyId, agent.id, { task_id: task.id })).id)
    expect(system(fifth)).toContain(`Continues the session of run ${fourth.id}.`)
  })
})
