import { afterAll, beforeAll, expect, it } from 'vitest'
import { createCompany, createTask, hireAgent } from '../fixtures.ts'
import { call, createUser, type TestApp, testApp } from '../helpers.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

// SPEC.md's Run, every field it names (the dashboard's active_runs are "Run (without transcript)").
const SPEC_RUN_FIELDS = ['id', 'agent_id', 'task_id', 'routine_id', 'runner_id', 'status', 'trigger', 'tokens_in', 'tokens_out', 'cost_cents',
  'summary', 'error', 'heartbeat_at', 'started_at', 'ended_at', 'created_at']

it("answers the dashboard's active runs with every field SPEC.md names, their task, and nothing only a run's page needs", async () => {
  const user = await createUser(t.ctx, 'Owner')
  const company = await createCompany(t.app, user.token)
  const base = `/api/companies/${company.id}`
  const agent = await hireAgent(t.app, user.token, company.id, { name: 'Worker' })
  const tasks = []
  for (let i = 0; i < 22; i++) tasks.push(await createTask(t.app, user.token, company.id, { title: `Work ${i + 1}`, assignee_agent_id: agent.id }))

  const r = await call(t.app, 'GET', `${base}/dashboard`, { token: user.token })
  expect(r.status).toBe(200)
  const runs = r.body.active_runs as Record<string, unknown>[]
  expect(runs).toHaveLength(20)
  for (const run of runs) {
    expect(Object.keys(run).sort()).toEqual([...SPEC_RUN_FIELDS, 'not_before', 'task_key', 'task_title'].sort())
    const task = tasks.find((x) => x.id === run.task_id)
    expect(run).toMatchObject({ agent_id: agent.id, task_key: task.key, task_title: task.title })
  }
})
