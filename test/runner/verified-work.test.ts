// Verified work with real git: a bare remote in a temp folder, a real runner and a `process`
// agent that edits files in its worktree, commits some and leaves others; the runner commits
// the rest, records the changes, keeps the patch, pushes the branch and runs the project's
// checks; failing checks send the work back; review requests changes and approves.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { Run } from '../../src/client/index.ts'
import { tempDir } from '../server-process.ts'
import { makeWorkspace, type RunnerProcess, startRunner, startTestServer, type TestServer, waitFor, type Workspace } from './harness.ts'

/**
 * The agent: its plan is in the task description (`WORK:[step, step, ...]`); it takes the step
 * of its run's number on the branch (lines in .runs, which it appends to), and records what it
 * saw at start and at the end.
 */
const AGENT = `
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
const prompt = fs.readFileSync(0, 'utf8')
const out = process.argv[2]
const runId = process.env.SHOPFLOOR_RUN_ID
const steps = JSON.parse(/WORK:(\\[.*\\])/.exec(prompt)[1])
const done = fs.existsSync('.runs') ? fs.readFileSync('.runs', 'utf8').split('\\n').filter(Boolean).length : 0
const step = steps[Math.min(done, steps.length - 1)]
const seen = { cwd: process.cwd(), start: fs.readdirSync('.').sort(), branch: execFileSync('git', ['branch', '--show-current']).toString().trim(), prompt, ownGit: fs.statSync('.git').isDirectory() }
if (step.poison) {
  // What an agent could leave for the runner's own git calls after it: a hook, fsmonitor, a remote of its choosing.
  fs.writeFileSync('.git/hooks/pre-commit', '#!/bin/sh\\ntouch ' + step.poison + '\\n', { mode: 0o755 })
  execFileSync('git', ['config', 'core.hooksPath', '.git/hooks'])
  execFileSync('git', ['config', 'core.fsmonitor', 'touch ' + step.poison + '; false'])
  execFileSync('git', ['config', 'remote.origin.url', step.elsewhere])
}
fs.appendFileSync('.runs', runId + '\\n')
// An identity of its own choosing, as an agent sets one: the runner gives it GIT_AUTHOR_* and GIT_COMMITTER_*, which git prefers to user.name.
const me = { GIT_AUTHOR_NAME: 'Agent Itself', GIT_AUTHOR_EMAIL: 'agent@example.test', GIT_COMMITTER_NAME: 'Agent Itself', GIT_COMMITTER_EMAIL: 'agent@example.test' }
const git = (...args) => execFileSync('git', args, { env: { ...process.env, ...me } })
for (const [file, text] of Object.entries(step.commit ?? {})) { fs.mkdirSync(file.split('/').slice(0, -1).join('/') || '.', { recursive: true }); fs.writeFileSync(file, text) }
if (step.commit) { git('add', '--all'); git('commit', '-q', '-m', step.message ?? 'Agent commit') }
if (step.sleep) await new Promise((r) => setTimeout(r, step.sleep * 1000))
for (const [file, text] of Object.entries(step.leave ?? {})) { fs.mkdirSync(file.split('/').slice(0, -1).join('/') || '.', { recursive: true }); fs.writeFileSync(file, text) }
if (step.big) fs.writeFileSync('big.txt', ('x'.repeat(99) + '\\n').repeat(step.big))
seen.end = fs.readdirSync('.').sort()
fs.writeFileSync(out + '/' + runId + '.json', JSON.stringify(seen))
process.stdout.write(step.reply ?? 'Done.')
`

// A test waits for several runs, each a clone, an agent, git and checks: long on a busy machine.
vi.setConfig({ testTimeout: 180_000 })

let server: TestServer
let out: string
let agentCommand: string
const runners: RunnerProcess[] = []

beforeAll(async () => {
  server = await startTestServer({ ALLOW_LOCAL_REPOSITORIES: 'true' })
  const dir = tempDir('shopfloor-work-agent-')
  out = path.join(dir, 'out')
  fs.mkdirSync(out)
  fs.writeFileSync(path.join(dir, 'agent.mjs'), AGENT)
  agentCommand = `"${process.execPath}" "${path.join(dir, 'agent.mjs')}" "${out}"`
})
afterAll(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop('SIGKILL')))
  await server?.close()
})

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 'Seed', GIT_AUTHOR_EMAIL: 'seed@example.test', GIT_COMMITTER_NAME: 'Seed', GIT_COMMITTER_EMAIL: 'seed@example.test' }
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: GIT_ENV }).toString().trim()

/** A bare remote whose main branch has a README; `hook` is a pre-receive hook. */
function bareRemote(hook?: string): string {
  const remote = path.join(tempDir('shopfloor-remote-'), 'site.git')
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote])
  const seed = tempDir('shopfloor-seed-')
  git(seed, 'init', '-q', '-b', 'main')
  fs.writeFileSync(path.join(seed, 'README.md'), '# Site\n')
  git(seed, 'add', 'README.md')
  git(seed, 'commit', '-q', '-m', 'First')
  git(seed, 'push', '-q', remote, 'main')
  if (hook) fs.writeFileSync(path.join(remote, 'hooks', 'pre-receive'), `#!/bin/sh\n${hook}\n`, { mode: 0o755 })
  return remote
}

function runner(ws: Workspace, args: string[] = []): RunnerProcess {
  const process_ = startRunner(
    ['--url', server.url, '--company', ws.companyId, '--heartbeat-seconds', '1', '--flush-seconds', '0.2', '--poll-seconds', '5',
      '--agent-command', agentCommand, '--cache-dir', tempDir('shopfloor-runner-cache-'), ...args],
    { SHOPFLOOR_API_KEY: ws.apiKey },
  )
  runners.push(process_)
  return process_
}

async function setup(project: Record<string, unknown>, runnerArgs = ['--allow-local-repositories', '--allow-checks']) {
  const ws = await makeWorkspace(server.url)
  const created = await ws.client.projects.create(ws.companyId, { name: 'Site', ...project })
  runner(ws, runnerArgs)
  return { ws, project: created }
}

async function assign(ws: Workspace, projectId: string, steps: unknown[], name = 'Builder') {
  const agent = await ws.client.agents.hire(ws.companyId, { name, adapter: 'process' })
  const task = await ws.client.tasks.create(ws.companyId, { title: 'Build the widget', description: `WORK:${JSON.stringify(steps)}`, assignee_agent_id: agent.id, project_id: projectId })
  const [run] = await ws.client.runs.list(ws.companyId, { task_id: task.id })
  return { agent, task, run }
}

const finished = (ws: Workspace, runId: string) =>
  waitFor(async () => {
    const run = await ws.client.runs.get(ws.companyId, runId)
    return run.status === 'succeeded' || run.status === 'failed' ? run : null
  }, 60_000)

/** The task's runs, oldest first, once there are `count` and all have finished. */
const runsOf = (ws: Workspace, taskId: string, count: number) =>
  waitFor(async () => {
    const runs = (await ws.client.runs.list(ws.companyId, { task_id: taskId })).reverse()
    return runs.length >= count && runs.slice(0, count).every((r) => r.status === 'succeeded' || r.status === 'failed') ? runs : null
  }, 90_000)

const seen = (runId: string) => JSON.parse(fs.readFileSync(path.join(out, `${runId}.json`), 'utf8'))

describe.concurrent('a task\'s branch', () => {
  it('commits what the agent left, records the changes, keeps the patch, pushes; request changes continues the branch; approve', async () => {
    const remote = bareRemote()
    const { ws, project } = await setup({ repository: `file://${remote}`, checks: [{ name: 'readme', command: 'test -f README.md' }] })
    const { agent, task, run } = await assign(ws, project.id, [
      { commit: { 'src/a.txt': 'a\n' }, message: 'Add a', leave: { 'notes.md': 'notes\n', 'README.md': '# Site\n\nWidgets.\n' }, reply: 'Added a, notes and a line.' },
      { leave: { 'src/b.txt': 'b\n' }, reply: 'Added b.' },
    ])
    const first = await finished(ws, run.id)
    expect(first.status).toBe('succeeded')
    const branch = `shopfloor/${task.key}`
    expect(seen(run.id).branch).toBe(branch)
    expect(first.changes).toMatchObject({ branch, pushed: true, base_commit: git(remote, 'rev-parse', 'main') })
    expect(first.changes!.head_commit).toBe(git(remote, 'rev-parse', branch))
    expect(first.changes!.commits.map((c) => c.message)).toEqual(['Added a, notes and a line.', 'Add a'])
    expect(first.changes!.files.sort((a, b) => (a.path < b.path ? -1 : 1))).toEqual([
      { path: '.runs', status: 'added', additions: 1, deletions: 0 },
      { path: 'README.md', status: 'modified', additions: 2, deletions: 0 },
      { path: 'notes.md', status: 'added', additions: 1, deletions: 0 },
      { path: 'src/a.txt', status: 'added', additions: 1, deletions: 0 },
    ])
    expect(first.changes).toMatchObject({ additions: 5, deletions: 0 })
    expect(first.checks).toEqual([expect.objectContaining({ name: 'readme', status: 'passed', exit_code: 0 })])
    // The runner's commit is the agent's, by its git identity; the agent's own commit keeps its author.
    expect(git(remote, 'log', branch, '--format=%an <%ae>|%s', '-2').split('\n')).toEqual([
      `Builder <${agent.id}@agents.invalid>|Added a, notes and a line.`, 'Agent Itself <agent@example.test>|Add a',
    ])
    const patch = await ws.client.runs.patch(ws.companyId, run.id)
    expect(patch).toContain('diff --git a/notes.md b/notes.md')
    expect(patch).toContain('+++ b/src/a.txt')
    expect(patch).toContain('+Widgets.')
    expect((await ws.client.tasks.get(ws.companyId, task.id)).status).toBe('in_review')

    await ws.client.tasks.review(ws.companyId, task.id, { decision: 'request_changes', comment: 'Add b too.' })
    const [, second] = await runsOf(ws, task.id, 2)
    expect(second).toMatchObject({ status: 'succeeded', trigger: 'assignment' })
    // Continued the branch: the first run's files were there from the start.
    expect(seen(second.id).start).toEqual(expect.arrayContaining(['notes.md', 'src', 'README.md']))
    expect(seen(second.id).prompt).toContain('Add b too.')
    expect(second.changes!.base_commit).toBe(first.changes!.base_commit)
    expect(second.changes!.commits.map((c) => c.message)).toEqual(['Added b.', 'Added a, notes and a line.', 'Add a'])
    expect(second.changes!.files.map((f) => f.path)).toContain('src/b.txt')
    expect(git(remote, 'rev-parse', branch)).toBe(second.changes!.head_commit)
    expect((await ws.client.tasks.get(ws.companyId, task.id)).status).toBe('in_review')

    const approved = await ws.client.tasks.review(ws.companyId, task.id, { decision: 'approve' })
    expect(approved.status).toBe('done')
  })

  it('approve with merge_on_approve merges the branch into the default branch; a conflict blocks the task with a question', async () => {
    const remote = bareRemote()
    const { ws, project } = await setup({ repository: `file://${remote}`, merge_on_approve: true })
    const clean = await assign(ws, project.id, [{ leave: { 'feature.txt': 'feature\n' }, reply: 'Added the feature.' }], 'Merger')
    await finished(ws, clean.run.id)
    await ws.client.tasks.review(ws.companyId, clean.task.id, { decision: 'approve' })
    const [, merge] = await runsOf(ws, clean.task.id, 2)
    expect(merge).toMatchObject({ purpose: 'merge', status: 'succeeded', trigger: 'assignment' })
    expect(fs.existsSync(path.join(out, `${merge.id}.json`))).toBe(false) // no agent started
    expect(git(remote, 'log', 'main', '--format=%an <%ae>|%s', '-1')).toBe(`Merger <${clean.agent.id}@agents.invalid>|Merge shopfloor/${clean.task.key} into main: Build the widget`)
    expect(git(remote, 'show', 'main:feature.txt')).toBe('feature')
    expect((await ws.client.tasks.get(ws.companyId, clean.task.id)).status).toBe('done')
    const said = (await ws.client.comments.list(ws.companyId, clean.task.id)).at(-1)!
    expect(said.body).toBe(`Merged shopfloor/${clean.task.key} into main (commit ${git(remote, 'rev-parse', 'main')}).`)

    // A change to README.md on main after the branch left it: the branch's own change to it conflicts.
    const conflicting = await assign(ws, project.id, [{ leave: { 'README.md': '# Site by the agent\n' } }], 'Clasher')
    await finished(ws, conflicting.run.id)
    const seed = tempDir('shopfloor-seed-')
    git(seed, 'clone', '-q', remote, '.')
    fs.writeFileSync(path.join(seed, 'README.md'), '# Site by a person\n')
    git(seed, 'commit', '-q', '-am', 'A person edits the README')
    git(seed, 'push', '-q', 'origin', 'main')
    const mainBefore = git(remote, 'rev-parse', 'main')
    await ws.client.tasks.review(ws.companyId, conflicting.task.id, { decision: 'approve' })
    const [, failed] = await runsOf(ws, conflicting.task.id, 2)
    expect(failed).toMatchObject({ purpose: 'merge', status: 'succeeded' })
    await waitFor(async () => (await ws.client.tasks.get(ws.companyId, conflicting.task.id)).status === 'blocked', 10_000)
    const question = (await ws.client.comments.list(ws.companyId, conflicting.task.id)).at(-1)!
    expect(question).toMatchObject({ kind: 'question' })
    expect(question.body).toBe(`BLOCKED: Merging shopfloor/${conflicting.task.key} into main conflicts in README.md. Resolve it on the branch (or merge it by hand) and approve again.`)
    expect(git(remote, 'rev-parse', 'main')).toBe(mainBefore)
  })

  it("a run's repository is its own: hooks, fsmonitor and a remote the agent sets run nothing and push nowhere else", async () => {
    const remote = bareRemote()
    const elsewhere = path.join(tempDir('shopfloor-elsewhere-'), 'other.git')
    execFileSync('git', ['init', '-q', '--bare', elsewhere])
    const marker = path.join(tempDir('shopfloor-poison-'), 'ran')
    const { ws, project } = await setup({ repository: `file://${remote}` })
    const { task, run } = await assign(ws, project.id, [{ poison: marker, elsewhere, leave: { 'x.txt': 'x\n' } }])
    const done = await finished(ws, run.id)
    expect(done.error).toBeNull()
    expect(seen(run.id).ownGit).toBe(true)
    expect(done.changes).toMatchObject({ pushed: true, files: expect.arrayContaining([expect.objectContaining({ path: 'x.txt' })]) })
    expect(fs.existsSync(marker)).toBe(false)
    expect(git(remote, 'ls-tree', '--name-only', `shopfloor/${task.key}`).split('\n')).toContain('x.txt')
    expect(git(elsewhere, 'for-each-ref')).toBe('')
  })

  it('an agent that committed everything itself gets no commit of the runner', async () => {
    const remote = bareRemote()
    const { ws, project } = await setup({ repository: `file://${remote}` })
    const { task, run } = await assign(ws, project.id, [{ commit: { 'all.txt': 'mine\n' }, message: 'All mine', reply: 'Committed it all.' }])
    const done = await finished(ws, run.id)
    expect(done.changes).toMatchObject({ pushed: true, commits: [expect.objectContaining({ message: 'All mine' })] })
    expect(done.changes!.files.map((f) => f.path).sort()).toEqual(['.runs', 'all.txt'])
    expect(git(remote, 'log', `shopfloor/${task.key}`, '--format=%an|%s', '-1')).toBe('Agent Itself|All mine')
  })

  it('two concurrent runs of two tasks in one project never mix files', async () => {
    const remote = bareRemote()
    const { ws, project } = await setup({ repository: `file://${remote}` })
    const a = await assign(ws, project.id, [{ commit: { 'only-a.txt': 'a\n' }, sleep: 2, leave: { 'left-a.txt': 'a\n' } }], 'Ann')
    const b = await assign(ws, project.id, [{ commit: { 'only-b.txt': 'b\n' }, sleep: 2, leave: { 'left-b.txt': 'b\n' } }], 'Bob')
    const [runA, runB] = await Promise.all([finished(ws, a.run.id), finished(ws, b.run.id)])
    const [seenA, seenB] = [seen(runA.id), seen(runB.id)]
    expect(seenA.cwd).not.toBe(seenB.cwd)
    // They ran at the same time: each was still at work when the other had committed.
    expect(seenA.end).toEqual(['.git', '.runs', 'README.md', 'left-a.txt', 'only-a.txt'])
    expect(seenB.end).toEqual(['.git', '.runs', 'README.md', 'left-b.txt', 'only-b.txt'])
    expect(runA.changes!.files.map((f) => f.path).sort()).toEqual(['.runs', 'left-a.txt', 'only-a.txt'])
    expect(runB.changes!.files.map((f) => f.path).sort()).toEqual(['.runs', 'left-b.txt', 'only-b.txt'])
    expect(git(remote, 'ls-tree', '--name-only', `shopfloor/${a.task.key}`).split('\n').sort()).toEqual(['.runs', 'README.md', 'left-a.txt', 'only-a.txt'])
    expect(git(remote, 'ls-tree', '--name-only', `shopfloor/${b.task.key}`).split('\n').sort()).toEqual(['.runs', 'README.md', 'left-b.txt', 'only-b.txt'])
  })

  it('a branch the remote refuses: changes say pushed false and the run says why; a patch over 5 MiB is clipped with a note', async () => {
    const remote = bareRemote('echo "branches are protected here" >&2; exit 1')
    const { ws, project } = await setup({ repository: `file://${remote}` })
    const { task, run } = await assign(ws, project.id, [{ big: 60_000 }])
    const done = await finished(ws, run.id)
    expect(done.status).toBe('succeeded')
    expect(done.changes).toMatchObject({ branch: `shopfloor/${task.key}`, pushed: false, additions: 60_001 })
    const full = await ws.client.runs.get(ws.companyId, run.id)
    const note = full.transcript!.find((e) => e.text.includes('was not pushed'))
    expect(note?.text).toContain('branches are protected here')
    const patch = (await ws.client.runs.patch(ws.companyId, run.id))!
    expect(Buffer.byteLength(patch)).toBeLessThan(5 * 1024 * 1024 + 1000)
    expect(patch).toContain(`# Shopfloor: this patch is clipped at 5 MiB. The whole change is on the branch shopfloor/${task.key} (commit ${done.changes!.head_commit}).`)
  })

  it('a file:// repository on a runner without --allow-local-repositories fails the run saying so', async () => {
    const remote = bareRemote()
    const { ws, project } = await setup({ repository: `file://${remote}` }, [])
    const { run } = await assign(ws, project.id, [{}])
    const done = await finished(ws, run.id)
    expect(done.status).toBe('failed')
    expect(done.error).toBe(`could not prepare the working folder: the repository file://${remote} is on this machine, and this runner was not started with --allow-local-repositories`)
    expect(fs.existsSync(path.join(out, `${run.id}.json`))).toBe(false)
  })
})

describe.concurrent('checks', () => {
  it('a check that fails sends the work back quoting it; passing on the retry moves the task to review', async () => {
    const remote = bareRemote()
    const { ws, project } = await setup({ repository: `file://${remote}`, checks: [{ name: 'fixed', command: 'echo "looking for fixed.txt"; test -f fixed.txt' }] })
    const { task } = await assign(ws, project.id, [{ leave: { 'attempt.txt': '1\n' } }, { leave: { 'fixed.txt': 'ok\n' } }])
    const [first, second] = await runsOf(ws, task.id, 2)
    expect(first.checks).toEqual([expect.objectContaining({ name: 'fixed', status: 'failed', exit_code: 1, output_tail: 'looking for fixed.txt\n' })])
    expect(second).toMatchObject({ trigger: 'assignment', status: 'succeeded' })
    const quoted = (await ws.client.runs.get(ws.companyId, second.id)).transcript![0]
    expect(quoted.role).toBe('system')
    expect(quoted.text).toContain('The check "fixed" failed (exit code 1)')
    expect(quoted.text).toContain('looking for fixed.txt')
    expect(second.checks).toEqual([expect.objectContaining({ name: 'fixed', status: 'passed', exit_code: 0 })])
    await waitFor(async () => (await ws.client.tasks.get(ws.companyId, task.id)).status === 'in_review', 10_000)
  })

  it('a check that times out, again and again: three runs back, then blocked with a question for a person', async () => {
    const remote = bareRemote()
    const { ws, project } = await setup({ repository: `file://${remote}`, checks: [{ name: 'slow', command: 'echo started; sleep 30', timeout_seconds: 1 }] })
    const { task } = await assign(ws, project.id, [{ reply: 'Tried.' }])
    const runs = await runsOf(ws, task.id, 4)
    for (const run of runs) expect(run.checks).toEqual([expect.objectContaining({ name: 'slow', status: 'timed_out', exit_code: null, output_tail: 'started\n' })])
    expect(runs.slice(1).every((r) => r.trigger === 'assignment')).toBe(true)
    await waitFor(async () => (await ws.client.tasks.get(ws.companyId, task.id)).status === 'blocked', 10_000)
    const question = (await ws.client.comments.list(ws.companyId, task.id)).find((c) => c.kind === 'question')
    expect(question?.body).toContain('The check "slow" still fails after 4 attempts in a row')
    expect((await ws.client.runs.list(ws.companyId, { task_id: task.id })).filter((r: Run) => r.status === 'queued')).toHaveLength(0)
  })

  it('a runner without --allow-checks records them skipped and runs nothing', async () => {
    const remote = bareRemote()
    const marker = path.join(tempDir('shopfloor-check-marker-'), 'ran')
    const { ws, project } = await setup({ repository: `file://${remote}`, checks: [{ name: 'marker', command: `touch ${marker}` }] }, ['--allow-local-repositories'])
    const { task, run } = await assign(ws, project.id, [{ leave: { 'x.txt': 'x\n' } }])
    const done = await finished(ws, run.id)
    expect(done.checks).toEqual([expect.objectContaining({ name: 'marker', status: 'skipped', exit_code: null })])
    expect(fs.existsSync(marker)).toBe(false)
    await waitFor(async () => (await ws.client.tasks.get(ws.companyId, task.id)).status === 'in_review', 10_000)
  })
})
