// Everyday task work with the real executable: create, move, show by key, list filters,
// assign, comment, update, delete; the exit codes of API failures; --json output.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type CliWorld, newHome, signedInHome, startWorld } from './harness.ts'

// Each test starts several processes (about a second each, more on a busy machine).
vi.setConfig({ testTimeout: 180_000 })

let world: CliWorld
beforeAll(async () => {
  world = await startWorld()
})
afterAll(async () => {
  await world?.stop()
})

describe('tasks', () => {
  it('creates a task and moves it, by key in any case', async () => {
    const { home, account, companyId } = await signedInHome(world, 'ENG')
    const created = await world.run(['tasks', 'create', 'Write', 'the', 'docs', '--priority', 'high'], { home })
    expect(created.code).toBe(0)
    expect(created.stdout).toContain('Created ENG-1: Write the docs [todo]')

    const moved = await world.run(['tasks', 'move', 'eng-1', 'in_progress'], { home })
    expect(moved.code).toBe(0)
    expect(moved.stdout).toContain('Moved ENG-1 to in_progress')
    const task = await account.client.tasks.get(companyId, 'ENG-1')
    expect(task).toMatchObject({ title: 'Write the docs', status: 'in_progress', priority: 'high' })
    expect(task.started_at).not.toBeNull()

    const shown = await world.json(['tasks', 'show', 'ENG-1'], { home })
    expect(shown).toMatchObject({ key: 'ENG-1', status: 'in_progress', comments: [] })
  })

  it('runs diff prints a run\'s diff; tasks review approves or requests changes', async () => {
    const { home, account, companyId } = await signedInHome(world, 'REV')
    const agent = await account.client.agents.hire(companyId, { name: 'Builder', adapter: 'process' })
    const project = await account.client.projects.create(companyId, { name: 'Site', repository: 'https://example.test/site.git' })
    const task = await account.client.tasks.create(companyId, { title: 'Build', assignee_agent_id: agent.id, project_id: project.id })
    const run = (await account.client.runs.claim(companyId, { runner_id: 'cli-test' }))!.run
    const patch = 'diff --git a/a.txt b/a.txt\nnew file mode 100644\n--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+a\n'
    const none = await world.run(['runs', 'diff', run.id.slice(0, 8)], { home })
    expect(none.code).toBe(4)
    expect(none.stderr).toContain('has no diff')
    await account.client.runs.uploadPatch(companyId, run.id, 'cli-test', patch)
    const diff = await world.run(['runs', 'diff', run.id.slice(0, 8)], { home })
    expect(diff.code).toBe(0)
    expect(diff.stdout).toBe(patch)
    await account.client.tasks.update(companyId, task.id, { status: 'in_review' })
    await account.client.runs.report(companyId, run.id, { runner_id: 'cli-test', status: 'succeeded' })

    const neither = await world.run(['tasks', 'review', task.key], { home })
    expect(neither.code).not.toBe(0)
    expect(neither.stderr).toContain('Give exactly one of --approve and --request-changes')
    const changes = await world.run(['tasks', 'review', task.key, '--request-changes', 'Add a test.'], { home })
    expect(changes.code).toBe(0)
    expect(changes.stdout).toContain(`Requested changes on ${task.key}: back to todo`)
    expect((await account.client.comments.list(companyId, task.id)).at(-1)?.body).toBe('Add a test.')
    const early = await world.run(['tasks', 'review', task.key, '--approve'], { home })
    expect(early.code).toBe(5)
    expect(early.stderr).toContain('INVALID_STATE')
    await account.client.tasks.update(companyId, task.id, { status: 'in_review' })
    const approved = await world.run(['tasks', 'review', task.key, '--approve'], { home })
    expect(approved.stdout).toContain(`Approved ${task.key}: done`)
  })

  it('reads a description of - from standard input, for goals, projects and routines as for tasks', async () => {
    const { home, account, companyId } = await signedInHome(world, 'STD')
    const goal = await world.json(['goals', 'create', 'Grow', '--description', '-'], { home, input: 'Goal text\n' })
    expect(goal.description).toBe('Goal text')
    const project = await world.json(['projects', 'create', 'Site', '--description', '-'], { home, input: 'Project text' })
    expect(project.description).toBe('Project text')
    const agent = await account.client.agents.hire(companyId, { name: 'Writer' })
    const routine = await world.json(['routines', 'create', 'Daily', '--agent', agent.id, '--cron', '0 9 * * *', '--description', '-'], { home, input: 'Routine text' })
    expect(routine.description).toBe('Routine text')
  })

  it('lists tasks as a table, filtered by status and text', async () => {
    const { home, account, companyId } = await signedInHome(world, 'OPS')
    await account.client.tasks.create(companyId, { title: 'Rotate keys', status: 'blocked' })
    await account.client.tasks.create(companyId, { title: 'Patch servers' })
    await account.client.tasks.create(companyId, { title: 'Rotate logs', status: 'done' })

    const table = await world.run(['tasks', 'list'], { home })
    expect(table.code).toBe(0)
    const lines = table.stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^KEY\s+STATUS\s+PRIORITY\s+ASSIGNEE\s+TITLE$/)
    expect(lines).toHaveLength(4)

    const filtered = await world.json(['tasks', 'list', '--status', 'blocked,done', '--search', 'rotate'], { home })
    expect(filtered.map((t: { key: string }) => t.key).sort()).toEqual(['OPS-1', 'OPS-3'])
    const one = await world.json(['tasks', 'list', '--status', 'todo'], { home })
    expect(one.map((t: { title: string }) => t.title)).toEqual(['Patch servers'])
  })

  it('assigns by agent name (queueing a run), comments, updates and deletes', async () => {
    const { home, account, companyId } = await signedInHome(world, 'DOC')
    const agent = await account.client.agents.hire(companyId, { name: 'Writer Bot' })
    await account.client.tasks.create(companyId, { title: 'Draft' })

    const assigned = await world.run(['tasks', 'assign', 'DOC-1', 'writer bot'], { home })
    expect(assigned.code).toBe(0)
    const task = await account.client.tasks.get(companyId, 'DOC-1')
    expect(task.assignee_agent_id).toBe(agent.id)
    const runs = await account.client.runs.list(companyId, { task_id: task.id })
    expect(runs).toHaveLength(1)
    expect(runs[0]).toMatchObject({ trigger: 'assignment', status: 'queued' })

    expect((await world.run(['tasks', 'comment', 'DOC-1', 'Looks', 'good', '--kind', 'plan'], { home })).code).toBe(0)
    const comments = await account.client.comments.list(companyId, 'DOC-1')
    expect(comments).toMatchObject([{ body: 'Looks good', kind: 'plan' }])

    const updated = await world.json(['tasks', 'update', 'DOC-1', '--title', 'Final draft', '--due', '2030-01-31', '--assignee', 'none'], { home })
    expect(updated).toMatchObject({ title: 'Final draft', assignee_agent_id: null })
    expect(updated.due_date).toMatch(/^2030-01-31T00:00:00/)

    const shown = await world.run(['tasks', 'show', 'DOC-1'], { home })
    expect(shown.stdout).toContain('DOC-1  Final draft')
    expect(shown.stdout).toContain('[plan]: Looks good')

    expect((await world.run(['tasks', 'delete', 'DOC-1', '--yes'], { home })).code).toBe(0)
    const gone = await world.run(['tasks', 'show', 'DOC-1'], { home })
    expect(gone.code).toBe(4)
  })
})

describe('exit codes and errors', () => {
  it('maps 404 to 4, 422 and 400 conflicts to 5, with CODE: message on stderr', async () => {
    const { home, account, companyId } = await signedInHome(world, 'EXT')
    await account.client.tasks.create(companyId, { title: 'Something' })

    const missing = await world.run(['tasks', 'show', 'EXT-99'], { home })
    expect(missing).toMatchObject({ code: 4, stdout: '' })
    expect(missing.stderr).toMatch(/^NOT_FOUND: Task not found/)

    const invalid = await world.run(['tasks', 'move', 'EXT-1', 'finished'], { home })
    expect(invalid.code).toBe(5)
    expect(invalid.stderr).toMatch(/^VALIDATION_ERROR: status: /)

    const agent = await account.client.agents.hire(companyId, { name: 'Idle' })
    const resume = await world.run(['agents', 'resume', agent.id], { home })
    expect(resume.code).toBe(5)
    expect(resume.stderr).toMatch(/^INVALID_STATE: /)

    const unknownAgent = await world.run(['agents', 'show', 'Nobody'], { home })
    expect(unknownAgent.code).toBe(4)
    expect(unknownAgent.stderr).toMatch(/^NOT_FOUND: Agent not found: Nobody/)
  })

  it('answers a company the caller is not in with 4, and no credentials with 3', async () => {
    const { home } = await signedInHome(world, 'OWN')
    const other = await signedInHome(world, 'OTH')
    const foreign = await world.run(['tasks', 'list', '--company', other.companyId], { home })
    expect(foreign.code).toBe(4)
    expect(foreign.stderr).toMatch(/^NOT_FOUND: Company not found/)

    const anonymous = await world.run(['tasks', 'list', '--company', other.companyId], { home: newHome() })
    expect(anonymous.code).toBe(3)
    expect(anonymous.stderr).toMatch(/^AUTH_REQUIRED: /)
  })

  it('reports usage mistakes with exit code 2 and a missing company with exit code 1', async () => {
    const { home } = await signedInHome(world, 'USE')
    const unknownOption = await world.run(['tasks', 'list', '--colour', 'red'], { home })
    expect(unknownOption.code).toBe(2)
    expect(unknownOption.stderr).toMatch(/^USAGE_ERROR: Unknown option --colour/)

    const missingArg = await world.run(['tasks', 'move', 'USE-1'], { home })
    expect(missingArg.code).toBe(2)
    expect(missingArg.stderr).toMatch(/^USAGE_ERROR: Missing status/)

    const unknownCommand = await world.run(['frobnicate'], { home })
    expect(unknownCommand.code).toBe(2)
    expect(unknownCommand.stderr).toMatch(/^USAGE_ERROR: Unknown command "frobnicate"/)

    // An API key and a fresh config: nothing says which company.
    const fresh = await signedInHome(world, 'NOC')
    const keyOnly = await fresh.account.client.apiKeys.create({ name: 'k' })
    const noChoice = await world.run(['tasks', 'list'], { home: newHome(), env: { SHOPFLOOR_API_KEY: keyOnly.key } })
    expect(noChoice.code).toBe(1)
    expect(noChoice.stderr).toMatch(/^NO_COMPANY: /)
  })
})

describe('--json', () => {
  it('prints the API records as JSON for lists, creates and companies', async () => {
    const { home, companyId } = await signedInHome(world, 'JSN')
    const created = await world.json(['tasks', 'create', 'Machine readable', '--status', 'backlog'], { home })
    expect(created).toMatchObject({ key: 'JSN-1', title: 'Machine readable', status: 'backlog', priority: 'medium' })
    const listed = await world.json(['tasks', 'list'], { home })
    expect(listed).toEqual([expect.objectContaining({ id: created.id })])
    const companies = await world.json(['companies', 'list'], { home })
    expect(companies).toEqual([expect.objectContaining({ id: companyId, task_prefix: 'JSN', role: 'owner' })])
    const moved = await world.json(['tasks', 'move', 'JSN-1', 'done'], { home })
    expect(moved.completed_at).toEqual(expect.any(String))
  })

  it('selects the company by prefix with companies use, and by --company name', async () => {
    const { home, account } = await signedInHome(world, 'FIR')
    const second = await account.client.companies.create({ name: 'Second Co', task_prefix: 'SEC' })
    const used = await world.run(['companies', 'use', 'sec'], { home })
    expect(used.stdout).toContain('Current company: Second Co (SEC')
    const created = await world.json(['tasks', 'create', 'In second'], { home })
    expect(created.key).toBe('SEC-1')
    const inFirst = await world.json(['tasks', 'create', 'In first', '--company', 'Company FIR'], { home })
    expect(inFirst.key).toBe('FIR-1')
    const listed = await world.json(['companies', 'list'], { home })
    expect(listed.map((c: { id: string }) => c.id)).toContain(second.id)
  })
})
