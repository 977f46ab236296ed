// Work products on the server: repositories a runner may clone, project checks and review
// settings, a run's changes, checks and patch, checks required before an agent marks a task
// done, and the review of a task's work. (The runner's side, with real git: test/runner/verified-work.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { claim } from '../agents/support.ts'
import { call, type TestApp, testApp } from '../helpers.ts'
import { auditTrail, captureEvents, seedAgent, seedCompany, seedTask } from './seed.ts'

let t: TestApp
beforeAll(async () => {
  t = await testApp()
})
afterAll(async () => t?.close())

const CHANGES = {
  branch: 'shopfloor/WRK-1', base_commit: 'a'.repeat(40), head_commit: 'b'.repeat(40), pushed: true,
  commits: [{ sha: 'b'.repeat(40), message: 'Add the widget' }],
  files: [{ path: 'widget.ts', status: 'added', additions: 3, deletions: 0 }], additions: 3, deletions: 0,
}
const FAILED = [{ name: 'tests', status: 'failed', exit_code: 1, duration_ms: 120, output_tail: '1 failing' }]
const PASSED = [{ name: 'tests', status: 'passed', exit_code: 0, duration_ms: 80, output_tail: 'ok' }]

/** A company with a project, an agent and a claimed run of its task. */
async function claimedRun(project: Record<string, unknown> = {}) {
  const s = await seedCompany(t, { prefix: 'WRK' })
  const agent = await seedAgent(t, s, { name: 'Builder' })
  const p = await call(t.app, 'POST', `${s.base}/projects`, { token: s.user.token, body: { name: 'Site', repository: 'git@example.test:site.git', ...project } })
  expect(p.status).toBe(201)
  const taskId = await seedTask(t, s, { title: 'Build it', assignee: agent, projectId: p.body.id })
  const claimed = await claim(t, s, agent)
  const report = (body: Record<string, unknown>) =>
    call(t.app, 'PATCH', `${s.base}/runs/${claimed.run.id}`, { token: s.user.token, body: { runner_id: 'test-runner', ...body } })
  return { s, agent, project: p.body, taskId, runId: claimed.run.id as string, token: claimed.run_token as string, report }
}

describe('repository', () => {
  it('takes https://, ssh:// and user@host:path; refuses options, file:// and other schemes with 422', async () => {
    const s = await seedCompany(t)
    for (const repository of ['https://github.com/acme/site.git', 'ssh://git@example.test:2222/acme/site.git', 'git@github.com:acme/site.git']) {
      const r = await call(t.app, 'POST', `${s.base}/projects`, { token: s.user.token, body: { name: 'Ok', repository } })
      expect(r.status, repository).toBe(201)
    }
    for (const repository of ['--upload-pack=touch /tmp/pwned', 'file:///etc', 'file:///srv/repos/site.git', '-c core.fsmonitor=touch /tmp/x',
      'ext::sh -c touch% /tmp/pwned', 'http://example.test/site.git', 'git://example.test/site.git', '/srv/repos/site.git',
      'ssh://-oProxyCommand=touch /tmp/x/site', 'https://example.test/a b', 'git@-oProxyCommand=x:site', 'x'.repeat(501)]) {
      const r = await call(t.app, 'POST', `${s.base}/projects`, { token: s.user.token, body: { name: 'Bad', repository } })
      expect(r.status, repository).toBe(422)
      expect(r.body.error).toMatchObject({ code: 'VALIDATION_ERROR' })
      expect(r.body.error.message, repository).toMatch(/^repository: repository /)
    }
    const made = await call(t.app, 'POST', `${s.base}/projects`, { token: s.user.token, body: { name: 'Later' } })
    const patched = await call(t.app, 'PATCH', `${s.base}/projects/${made.body.id}`, { token: s.user.token, body: { repository: '--upload-pack=id' } })
    expect(patched.status).toBe(422)
    expect((await call(t.app, 'GET', `${s.base}/projects/${made.body.id}`, { token: s.user.token })).body.repository).toBeNull()
  })

  it('file:// only where the server allows local repositories', async () => {
    const local = await testApp({ allowLocalRepositories: true })
    try {
      const user = await local.ctx.db.one('SELECT 1') // the app is up
      expect(user).toBeTruthy()
      const s = await seedCompany(local)
      const ok = await call(local.app, 'POST', `${s.base}/projects`, { token: s.user.token, body: { name: 'Local', repository: 'file:///srv/repos/site.git' } })
      expect(ok.status).toBe(201)
      const relative = await call(local.app, 'POST', `${s.base}/projects`, { token: s.user.token, body: { name: 'Local', repository: 'file://host/site.git' } })
      expect(relative.status).toBe(422)
    } finally {
      await local.close()
    }
  })

  it('a run token can neither set nor change a repository', async () => {
    const { s, project, token } = await claimedRun()
    const create = await call(t.app, 'POST', `${s.base}/projects`, { token, body: { name: 'Agent made', repository: 'https://example.test/evil.git' } })
    expect(create.status).toBe(403)
    expect(create.body.error.message).toContain('set a repository')
    expect((await call(t.app, 'POST', `${s.base}/projects`, { token, body: { name: 'Agent made' } })).status).toBe(201)
    const change = await call(t.app, 'PATCH', `${s.base}/projects/${project.id}`, { token, body: { repository: 'https://example.test/evil.git' } })
    expect(change.status).toBe(403)
  })
})

describe('project settings', () => {
  it('default_branch, checks (with their default timeout), require_checks, merge_on_approve, reviewer_agent_id; audited', async () => {
    const s = await seedCompany(t)
    const reviewer = await seedAgent(t, s, { name: 'Reviewer' })
    const r = await call(t.app, 'POST', `${s.base}/projects`, { token: s.user.token, body: { name: 'Site' } })
    expect(r.body).toMatchObject({ default_branch: 'main', checks: [], require_checks: false, merge_on_approve: false, reviewer_agent_id: null })
    const body = { default_branch: 'trunk', checks: [{ name: 'tests', command: 'npm test' }, { name: 'lint', command: 'npm run lint', timeout_seconds: 60 }],
      require_checks: true, merge_on_approve: true, reviewer_agent_id: reviewer }
    const updated = await call(t.app, 'PATCH', `${s.base}/projects/${r.body.id}`, { token: s.user.token, body })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({ ...body, checks: [{ name: 'tests', command: 'npm test', timeout_seconds: 600 }, { name: 'lint', command: 'npm run lint', timeout_seconds: 60 }] })
    const audit = (await auditTrail(t.ctx, s.companyId)).filter((e) => e.entity_id === r.body.id).at(-1)!
    expect(Object.keys(audit.changes).sort()).toEqual(['checks', 'default_branch', 'merge_on_approve', 'require_checks', 'reviewer_agent_id'])
    // The same again changes nothing.
    await call(t.app, 'PATCH', `${s.base}/projects/${r.body.id}`, { token: s.user.token, body })
    expect((await auditTrail(t.ctx, s.companyId)).filter((e) => e.entity_id === r.body.id)).toHaveLength(2)
  })

  it('refuses a check command over 2,000 characters, a timeout out of range, a bad branch, another company\'s reviewer', async () => {
    const s = await seedCompany(t)
    const other = await seedCompany(t)
    const stranger = await seedAgent(t, other)
    const r = await call(t.app, 'POST', `${s.base}/projects`, { token: s.user.token, body: { name: 'Site' } })
    const bad = [
      { checks: [{ name: 'tests', command: 'x'.repeat(2001) }] },
      { checks: [{ name: 'tests', command: 'npm test', timeout_seconds: 0 }] },
      { checks: [{ name: 'tests', command: 'npm test', timeout_seconds: 3601 }] },
      { checks: [{ name: '', command: 'npm test' }] },
      { checks: [{ name: 'tests', command: '' }] },
      { default_branch: '--force' },
      { default_branch: 'a..b' },
      { default_branch: 'main.lock' },
      { reviewer_agent_id: stranger },
    ]
    for (const body of bad) {
      const answer = await call(t.app, 'PATCH', `${s.base}/projects/${r.body.id}`, { token: s.user.token, body })
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(422)
      expect(answer.body.error.code).toBe('VALIDATION_ERROR')
    }
    const long = await call(t.app, 'PATCH', `${s.base}/projects/${r.body.id}`, { token: s.user.token, body: { checks: [{ name: 'tests', command: 'x'.repeat(2001) }] } })
    expect(long.body.error.message).toContain('checks.0.command: String should have at most 2000 characters')
  })
})

describe('changes, checks and patch of a run', () => {
  it('are Run fields, on the run and in lists; the patch is text/x-diff; a run token cannot upload one', async () => {
    const { s, runId, token, report } = await claimedRun()
    const fresh = await call(t.app, 'GET', `${s.base}/runs/${runId}`, { token: s.user.token })
    expect(fresh.body).toMatchObject({ changes: null, checks: [] })
    expect((await call(t.app, 'GET', `${s.base}/runs/${runId}/patch`, { token: s.user.token })).status).toBe(404)

    expect((await report({ changes: CHANGES })).status).toBe(200)
    expect((await report({ checks: PASSED })).status).toBe(200)
    const patch = 'diff --git a/widget.ts b/widget.ts\nnew file mode 100644\n--- /dev/null\n+++ b/widget.ts\n@@ -0,0 +1 @@\n+export const widget = 1\n'
    const up = await call(t.app, 'PUT', `${s.base}/runs/${runId}/patch`, { token: s.user.token, body: { runner_id: 'test-runner', patch } })
    expect(up.status).toBe(204)
    const other = await call(t.app, 'PUT', `${s.base}/runs/${runId}/patch`, { token: s.user.token, body: { runner_id: 'another-runner', patch } })
    expect(other.status).toBe(409)
    const agent = await call(t.app, 'PUT', `${s.base}/runs/${runId}/patch`, { token, body: { runner_id: 'test-runner', patch } })
    expect(agent.status).toBe(403)

    const got = await call(t.app, 'GET', `${s.base}/runs/${runId}/patch`, { token: s.user.token })
    expect(got.status).toBe(200)
    expect(got.headers['content-type']).toMatch(/^text\/x-diff/)
    expect(got.body).toBe(patch)
    expect((await call(t.app, 'GET', `${s.base}/runs/${runId}/patch`, { token })).body).toBe(patch) // agents read it too
    const run = (await call(t.app, 'GET', `${s.base}/runs/${runId}`, { token: s.user.token })).body
    expect(run).toMatchObject({ changes: CHANGES, checks: PASSED })
    const [listed] = (await call(t.app, 'GET', `${s.base}/runs`, { token: s.user.token })).body
    expect(listed).toMatchObject({ id: runId, changes: CHANGES, checks: PASSED })
  })

  it('refuses a patch over 5 MiB, and bad changes or checks with 422', async () => {
    const { s, runId, report } = await claimedRun()
    const big = await call(t.app, 'PUT', `${s.base}/runs/${runId}/patch`, { token: s.user.token, body: { runner_id: 'test-runner', patch: 'é'.repeat(3 * 1024 * 1024) } })
    expect(big.status).toBe(413)
    expect(big.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' })
    expect(big.body.error.message).toMatch(/^patch: /)
    expect((await report({ checks: [{ ...PASSED[0], status: 'fine' }] })).status).toBe(422)
    expect((await report({ changes: { ...CHANGES, files: [{ path: 'x', status: 'copied', additions: 1, deletions: 0 }] } })).status).toBe(422)
    expect((await call(t.app, 'GET', `${s.base}/runs/${runId}/patch`, { token: s.user.token })).status).toBe(404)
  })

  it('a finished run whose check failed sends the work back: an assignment run quoting the failure', async () => {
    const { s, agent, taskId, runId, report } = await claimedRun({ checks: [{ name: 'tests', command: 'npm test' }] })
    const events = captureEvents(t.ctx, s.companyId)
    expect((await report({ checks: FAILED, status: 'succeeded', summary: 'Built it' })).status).toBe(200)
    const runs = (await call(t.app, 'GET', `${s.base}/runs?task_id=${taskId}`, { token: s.user.token })).body
    const next = runs.find((r: any) => r.id !== runId)
    expect(next).toMatchObject({ status: 'queued', trigger: 'assignment', agent_id: agent })
    const full = (await call(t.app, 'GET', `${s.base}/runs/${next.id}`, { token: s.user.token })).body
    expect(full.transcript[0]).toMatchObject({ role: 'system' })
    expect(full.transcript[0].text).toContain('The check "tests" failed (exit code 1)')
    expect(full.transcript[0].text).toContain('1 failing')
    expect(events).toContainEqual(expect.objectContaining({ type: 'run.created', id: next.id }))
  })
})

describe('require_checks', () => {
  it('an agent cannot mark the task done while its last run\'s checks did not pass (400 CHECKS_FAILED); a person can', async () => {
    const { s, taskId, token, report } = await claimedRun({ require_checks: true, checks: [{ name: 'tests', command: 'npm test' }] })
    const done = () => call(t.app, 'PATCH', `${s.base}/tasks/${taskId}`, { token, body: { status: 'done' } })
    const before = await done()
    expect(before.status).toBe(400)
    expect(before.body.error).toMatchObject({ code: 'CHECKS_FAILED' })
    await report({ checks: FAILED })
    expect((await done()).body.error.code).toBe('CHECKS_FAILED')
    expect((await call(t.app, 'GET', `${s.base}/tasks/${taskId}`, { token: s.user.token })).body.status).toBe('in_progress')
    await report({ checks: PASSED })
    expect((await done()).status).toBe(200)
    expect((await call(t.app, 'PATCH', `${s.base}/tasks/${taskId}`, { token: s.user.token, body: { status: 'todo' } })).status).toBe(200)
  })

  it('a person marks done whatever the checks; without require_checks an agent may too', async () => {
    const required = await claimedRun({ require_checks: true })
    await required.report({ checks: FAILED })
    expect((await call(t.app, 'PATCH', `${required.s.base}/tasks/${required.taskId}`, { token: required.s.user.token, body: { status: 'done' } })).status).toBe(200)
    const free = await claimedRun()
    await free.report({ checks: FAILED })
    expect((await call(t.app, 'PATCH', `${free.s.base}/tasks/${free.taskId}`, { token: free.token, body: { status: 'done' } })).status).toBe(200)
  })
})

describe('review', () => {
  async function inReview(project: Record<string, unknown> = {}) {
    const setup = await claimedRun(project)
    await call(t.app, 'PATCH', `${setup.s.base}/tasks/${setup.taskId}`, { token: setup.token, body: { status: 'in_review' } })
    await setup.report({ status: 'succeeded', summary: 'Ready for review' })
    return setup
  }
  const review = (s: { base: string }, taskId: string, token: string, body: unknown) => call(t.app, 'POST', `${s.base}/tasks/${taskId}/review`, { token, body })

  it('approve moves the task to done, audited, published as task.updated with the decision (webhooks too)', async () => {
    const { s, taskId } = await inReview()
    t.ctx.config.webhooksAllowPrivate = true // a receiver that is never called: only the deliveries written are read
    const hook = await call(t.app, 'POST', `${s.base}/webhooks`, { token: s.user.token, body: { url: 'http://127.0.0.1:9/shopfloor', events: ['task.updated'] } })
    t.ctx.config.webhooksAllowPrivate = false
    expect(hook.status).toBe(201)
    const events = captureEvents(t.ctx, s.companyId)
    const r = await review(s, taskId, s.user.token, { decision: 'approve', comment: 'Looks right.' })
    expect(r.status).toBe(200)
    expect(r.body.status).toBe('done')
    // One task.updated, with the decision (not one without it as well).
    expect(events.filter((e) => e.type === 'task.updated' && e.id === taskId)).toEqual([{ type: 'task.updated', id: taskId, review: 'approve' }])
    const comments = (await call(t.app, 'GET', `${s.base}/tasks/${taskId}/comments`, { token: s.user.token })).body
    expect(comments.at(-1)).toMatchObject({ body: 'Looks right.', kind: 'comment', author_user_id: s.user.id })
    const moved = (await auditTrail(t.ctx, s.companyId)).filter((e) => e.entity_id === taskId).at(-1)!
    expect(moved).toMatchObject({ verb: 'moved', actor_type: 'user', changes: { status: ['in_review', 'done'] } })
    const delivered = await t.ctx.db.many<{ payload: any }>('SELECT payload FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY seq', [hook.body.id])
    expect(delivered.map((d) => d.payload.data.review ?? null)).toEqual(['approve'])
    expect(delivered[0].payload).toMatchObject({ type: 'task.updated', data: { id: taskId, status: 'done', review: 'approve' } })
    const again = await review(s, taskId, s.user.token, { decision: 'approve' })
    expect(again.status).toBe(400)
    expect(again.body.error.code).toBe('INVALID_STATE')
  })

  it('request changes needs a comment, moves the task back to todo and queues an assignment run for the assignee', async () => {
    const { s, agent, taskId } = await inReview()
    const empty = await review(s, taskId, s.user.token, { decision: 'request_changes' })
    expect(empty.status).toBe(422)
    expect((await review(s, taskId, s.user.token, { decision: 'maybe' })).status).toBe(422)
    const events = captureEvents(t.ctx, s.companyId)
    const r = await review(s, taskId, s.user.token, { decision: 'request_changes', comment: 'The widget needs a test.' })
    expect(r.status).toBe(200)
    expect(r.body.status).toBe('todo')
    expect(events.filter((e) => e.type === 'task.updated' && e.id === taskId)).toEqual([{ type: 'task.updated', id: taskId, review: 'request_changes' }])
    const queued = (await call(t.app, 'GET', `${s.base}/runs?task_id=${taskId}&status=queued`, { token: s.user.token })).body
    expect(queued).toHaveLength(1)
    expect(queued[0]).toMatchObject({ trigger: 'assignment', agent_id: agent })
    const comments = (await call(t.app, 'GET', `${s.base}/tasks/${taskId}/comments`, { token: s.user.token })).body
    expect(comments.at(-1).body).toBe('The widget needs a test.')
  })

  it('approve with merge_on_approve queues a merge run for the assignee; without an agent to merge, a question says so', async () => {
    const { s, agent, taskId } = await inReview({ merge_on_approve: true })
    expect((await review(s, taskId, s.user.token, { decision: 'approve' })).status).toBe(200)
    const queued = (await call(t.app, 'GET', `${s.base}/runs?task_id=${taskId}&status=queued`, { token: s.user.token })).body
    expect(queued).toEqual([expect.objectContaining({ purpose: 'merge', trigger: 'assignment', agent_id: agent })])

    const other = await inReview({ merge_on_approve: true })
    await call(t.app, 'PATCH', `${other.s.base}/tasks/${other.taskId}`, { token: other.s.user.token, body: { assignee_agent_id: null } })
    expect((await review(other.s, other.taskId, other.s.user.token, { decision: 'approve' })).status).toBe(200)
    const comments = (await call(t.app, 'GET', `${other.s.base}/tasks/${other.taskId}/comments`, { token: other.s.user.token })).body
    expect(comments.at(-1)).toMatchObject({ kind: 'question' })
    expect(comments.at(-1).body).toMatch(/^The branch shopfloor\/WRK-1 was not merged into main: the task has no agent/)
    expect((await call(t.app, 'GET', `${other.s.base}/runs?task_id=${other.taskId}&status=queued`, { token: other.s.user.token })).body).toEqual([])
  })

  it("the project's reviewer agent may review through its run; any other agent is 403", async () => {
    const s = await seedCompany(t, { prefix: 'REV' })
    const builder = await seedAgent(t, s, { name: 'Builder' })
    const reviewer = await seedAgent(t, s, { name: 'Reviewer' })
    const project = (await call(t.app, 'POST', `${s.base}/projects`, { token: s.user.token, body: { name: 'Site', reviewer_agent_id: reviewer } })).body
    const taskId = await seedTask(t, s, { title: 'Build it', assignee: builder, projectId: project.id, status: 'in_review' })
    const other = await seedTask(t, s, { title: 'Review it', assignee: reviewer })
    const builderRun = await claim(t, s, builder).catch(() => null)
    const reviewerRun = await claim(t, s, reviewer)
    expect(reviewerRun.task.id).toBe(other)
    if (builderRun) {
      const refused = await review(s, taskId, builderRun.run_token, { decision: 'approve' })
      expect(refused.status).toBe(403)
    }
    const approved = await review(s, taskId, reviewerRun.run_token, { decision: 'approve' })
    expect(approved.status).toBe(200)
    expect(approved.body.status).toBe('done')
    const moved = (await auditTrail(t.ctx, s.companyId)).filter((e) => e.entity_id === taskId).at(-1)!
    expect(moved).toMatchObject({ actor_type: 'agent', actor_name: 'Reviewer' })
  })
})
