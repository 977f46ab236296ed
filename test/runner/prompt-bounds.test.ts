// What a run's prompt holds of a task whose texts are as long as the API allows (1 MiB each): the
// start of the description, of each goal's and of each comment, the newest comments within a total, and a line
// that says what was left out and where to read it. Claimed from a real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildPrompt, COMMENT_PROMPT_MAX, COMMENTS_PROMPT_MAX, DESCRIPTION_PROMPT_MAX, GOAL_PROMPT_MAX } from '../../src/runner/prompt.ts'
import { call, type TestApp, testApp } from '../helpers.ts'
import { seedAgent, seedCompany, seedTask } from '../runs/seed.ts'
import { claim } from '../agents/support.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

const MIB = 1024 * 1024

describe('the prompt of a task with long texts', () => {
  it('holds the start of the description and of the newest comments, and says what it left out', async () => {
    const s = await seedCompany(t, { prefix: 'LONG' })
    const agent = await seedAgent(t, s, { name: 'Reader' })
    const goal = await call(t.app, 'POST', `${s.base}/goals`, { token: s.user.token, body: { title: 'Ship', description: `Why we ship. ${'g'.repeat(50_000)} END-OF-GOAL` } })
    expect(goal.status).toBe(201)
    const taskId = await seedTask(t, s, { title: 'Read the log', goalId: goal.body.id })
    const description = `Start of the brief. ${'d'.repeat(MIB - 100)} END-OF-BRIEF`
    expect((await call(t.app, 'PATCH', `${s.base}/tasks/${taskId}`, { token: s.user.token, body: { description } })).status).toBe(200)
    for (let i = 1; i <= 12; i++) {
      const body = `Comment ${i} starts here. ${'c'.repeat(i === 12 ? 100 : 5_000)} END-${i}`
      expect((await call(t.app, 'POST', `${s.base}/tasks/${taskId}/comments`, { token: s.user.token, body: { body } })).status).toBe(201)
    }
    expect((await call(t.app, 'PATCH', `${s.base}/tasks/${taskId}`, { token: s.user.token, body: { assignee_agent_id: agent } })).status).toBe(200)

    const context = await claim(t, s, agent)
    expect(context.task.description.length).toBeGreaterThan(MIB - 100) // the claim itself carries the whole text
    const prompt = buildPrompt(context, { tools: true })

    expect(prompt).toContain('- Ship [active]: Why we ship.')
    expect(prompt).not.toContain('END-OF-GOAL')
    expect(prompt).toContain('Start of the brief.')
    expect(prompt).not.toContain('END-OF-BRIEF')
    expect(prompt).toContain(`more characters left out: get_task "LONG-1" gives the whole text.)`)
    // The newest comment whole, the long ones cut to their start, the oldest left out and counted.
    expect(prompt).toContain('Comment 12 starts here.')
    expect(prompt).toContain('END-12')
    expect(prompt).toContain('Comment 11 starts here.')
    expect(prompt).not.toContain('END-11')
    expect(prompt).not.toContain('Comment 1 starts here.')
    expect(prompt).toMatch(/\((\d+) older comments left out: get_task "LONG-1" gives the whole text\.\)/)
    const shown = prompt.match(/Comment \d+ starts here\./g)!.length
    expect(Number(/\((\d+) older comments left out/.exec(prompt)![1]) + shown).toBe(12)

    const bound = DESCRIPTION_PROMPT_MAX + COMMENTS_PROMPT_MAX + GOAL_PROMPT_MAX + 12 * 200 + 8_000
    expect(prompt.length).toBeLessThan(bound)
    expect(COMMENT_PROMPT_MAX).toBeLessThan(5_000)
  })
})
