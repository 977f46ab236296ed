// The commands beyond sign-in and tasks: company updates, agents, org chart, goals, projects, routines, runs,
// approvals, the inbox, webhooks, activity, keys, and --help on every command.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENTRIES, GLOBAL_OPTIONS, isGroup } from '../../src/cli/client/registry.ts'
import type { TestApp } from '../helpers.ts'
import { ShopfloorClient } from '../../src/client/index.ts'
import { listeningApp, type Operator, operator } from './in-process.ts'

let api: TestApp
let url: string
let close: () => Promise<void>
beforeAll(async () => {
  ;({ api, url, close } = await listeningApp())
})
afterAll(async () => {
  await close?.()
})

describe('companies', () => {
  it('updates the current company (name, mission, budget) or one named by its prefix', async () => {
    const op = await operator(api, url, 'CUP')
    const updated = await op.run('companies', 'update', '--name', 'Renamed Co', '--budget', '50000', '--mission', 'Ship it')
    expect(updated.stdout).toBe('Updated company Renamed Co: budget $500.00\n')
    expect(await op.client.companies.get(op.companyId)).toMatchObject({ name: 'Renamed Co', monthly_budget_cents: 50000, mission: 'Ship it' })
    expect((await op.run('companies', 'show')).stdout).toMatch(/Budget:\s+\$500\.00\n/)
    expect((await op.json('companies', 'update', 'cup', '--mission', 'none')).mission).toBeNull()
    const nothing = await op.run('companies', 'update')
    expect(nothing.stderr).toMatch(/^USAGE_ERROR: Nothing to change/)
    const negative = await op.run('companies', 'update', '--budget', '-5')
    expect(negative.code).toBe(5)
    expect(negative.stderr).toMatch(/^VALIDATION_ERROR: monthly_budget_cents/)
  })
})

describe('agents', () => {
  it('hires with a manager by name, lists, shows, and draws the org chart as a tree', async () => {
    const op = await operator(api, url, 'AGT')
    const boss = await op.json('agents', 'hire', 'Ada', 'Boss', '--title', 'CEO', '--role', 'ceo', '--budget', '5000')
    expect(boss).toMatchObject({ name: 'Ada Boss', title: 'CEO', role: 'ceo', monthly_budget_cents: 5000, status: 'idle' })
    const report = await op.json('agents', 'hire', 'Bo', '--reports-to', 'ada boss', '--capability', 'code', '--capability', 'review,test')
    expect(report).toMatchObject({ reports_to_id: boss.id, capabilities: ['code', 'review', 'test'] })
    await op.json('agents', 'hire', 'Cy', '--reports-to', report.id)

    const org = await op.run('agents', 'org')
    expect(org.code).toBe(0)
    expect(org.stdout).toBe('Ada Boss, CEO [idle]\n└── Bo [idle]\n    └── Cy [idle]\n')

    const shown = await op.run('agents', 'show', 'Bo')
    expect(shown.stdout).toMatch(/Reports to:\s+Ada Boss/)
    const list = await op.run('agents', 'list')
    expect(list.stdout.split('\n')[0]).toMatch(/^NAME\s+TITLE\s+STATUS\s+OPEN\s+SPEND\s+BUDGET$/)
    expect(list.stdout).not.toContain(boss.id)
    expect(list.stdout).toContain('$50.00')
  })

  it('hires and updates with adapter settings, and updates other fields', async () => {
    const op = await operator(api, url, 'ADP')
    const hired = await op.json('agents', 'hire', 'Claude', '--adapter', 'agent_cli_1', '--model', 'claude-sonnet-4-5', '--max-turns', '20',
      '--pass-env', 'GITHUB_TOKEN', '--agent-arg=--verbose')
    expect(hired.adapter_config).toEqual({ model: 'claude-sonnet-4-5', max_turns: 20, env: ['GITHUB_TOKEN'], args: ['--verbose'] })
    // An update keeps the keys it does not name.
    const updated = await op.json('agents', 'update', 'Claude', '--model', 'claude-opus-4-1', '--title', 'Engineer')
    expect(updated).toMatchObject({ title: 'Engineer', adapter_config: { model: 'claude-opus-4-1', max_turns: 20, env: ['GITHUB_TOKEN'], args: ['--verbose'] } })
    const replaced = await op.json('agents', 'update', 'Claude', '--adapter', 'http', '--adapter-config', '{"url":"https://agent.example.test"}')
    expect(replaced).toMatchObject({ adapter: 'http', adapter_config: { url: 'https://agent.example.test' } })
    // An http agent's endpoint by its own option: --url is the server's address.
    const webby = await op.json('agents', 'hire', 'Webby', '--adapter', 'http', '--endpoint', 'https://webby.example.test/run', '--secret-env', 'WEBBY_TOKEN')
    expect(webby.adapter_config).toEqual({ url: 'https://webby.example.test/run', secret_env: 'WEBBY_TOKEN' })
    expect((await op.run('agents', 'show', 'Claude')).stdout).toMatch(/Adapter settings:\s+\{"url":"https:\/\/agent.example.test"\}/)
    const refused = await op.run('agents', 'update', 'Claude', '--max-turns', '3')
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain('adapter_config.max_turns: Not a setting of adapter http')
    const bad = await op.run('agents', 'update', 'Claude', '--adapter-config', '[1]')
    expect(bad.stderr).toContain('--adapter-config must be a JSON object')
  })

  it('hires and updates with spend settings, and shows them', async () => {
    const op = await operator(api, url, 'SPD')
    const hired = await op.json('agents', 'hire', 'Careful', '--adapter', 'simulated', '--max-run-cost', '250', '--max-runs-per-hour', '20',
      '--pause-on-repeat', 'on', '--skip-idle-heartbeats', 'on')
    expect(hired).toMatchObject({ max_run_cost_cents: 250, max_runs_per_hour: 20, pause_on_repeat: true, heartbeat_skip_idle: true })
    const updated = await op.json('agents', 'update', 'Careful', '--pause-on-repeat', 'off', '--max-runs-per-hour', '0')
    expect(updated).toMatchObject({ max_run_cost_cents: 250, max_runs_per_hour: 0, pause_on_repeat: false, heartbeat_skip_idle: true })
    const shown = (await op.run('agents', 'show', 'Careful')).stdout
    expect(shown).toMatch(/Cap per run:\s+\$2\.50/)
    expect(shown).toMatch(/Runs per hour:\s+no limit/)
    expect(shown).toMatch(/Pause on repeat:\s+off/)
    expect(shown).toMatch(/Skip idle heartbeats:\s+on/)
    const bad = await op.run('agents', 'update', 'Careful', '--pause-on-repeat', 'maybe')
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain('--pause-on-repeat must be on or off, got "maybe"')
  })

  it('pauses, resumes, terminates (hidden from the list unless --all) and wakes', async () => {
    const op = await operator(api, url, 'LIF')
    const agent = await op.client.agents.hire(op.companyId, { name: 'Worker' })
    expect(await op.json('agents', 'pause', 'Worker')).toMatchObject({ status: 'paused' })
    const wakePaused = await op.run('agents', 'wake', 'Worker')
    expect(wakePaused.code).toBe(5)
    expect(wakePaused.stderr).toMatch(/^INVALID_STATE: /)
    expect(await op.json('agents', 'resume', 'Worker')).toMatchObject({ status: 'idle' })

    await op.client.tasks.create(op.companyId, { title: 'Job', status: 'backlog' })
    const run = await op.json('agents', 'wake', 'Worker', '--task', 'LIF-1', '--reason', 'check it')
    expect(run).toMatchObject({ agent_id: agent.id, trigger: 'manual', status: 'queued' })
    expect(run.task_id).toBe((await op.client.tasks.get(op.companyId, 'LIF-1')).id)

    expect(await op.json('agents', 'terminate', 'Worker', '--yes')).toMatchObject({ status: 'terminated' })
    expect(await op.json('agents', 'list')).toEqual([])
    expect(await op.json('agents', 'list', '--all')).toEqual([expect.objectContaining({ id: agent.id })])
    expect((await op.run('agents', 'terminate', agent.id, '--yes')).code).toBe(5)
  })

  it('opens a hire approval with --request-approval; approvals approve and reject decide it', async () => {
    const op = await operator(api, url, 'APR')
    const proposed = await op.run('agents', 'hire', 'Newcomer', '--request-approval')
    expect(proposed.stdout).toContain('waits for approval')
    const [approval] = await op.json('approvals', 'list', '--status', 'pending')
    expect(approval).toMatchObject({ type: 'hire_agent', status: 'pending' })
    const table = await op.run('approvals', 'list')
    // An approval is shown, and taken, by the start of its id.
    expect(table.stdout).toMatch(new RegExp(`^${approval.id.slice(0, 8)}\\s+hire_agent\\s+pending\\s+Newcomer`, 'm'))
    expect(table.stdout).not.toContain(approval.id)

    expect(await op.json('approvals', 'approve', approval.id.slice(0, 8), '--note', 'welcome')).toMatchObject({
      status: 'approved',
      decision_note: 'welcome',
    })
    expect((await op.client.agents.get(op.companyId, approval.agent_id)).status).toBe('idle')
    const again = await op.run('approvals', 'reject', approval.id)
    expect(again.code).toBe(5)
    expect(again.stderr).toMatch(/^ALREADY_DECIDED: /)

    await op.run('agents', 'hire', 'Unwanted', '--request-approval')
    const [second] = await op.json('approvals', 'list', '--status', 'pending')
    expect(await op.json('approvals', 'reject', second.id)).toMatchObject({ status: 'rejected' })
    expect((await op.client.agents.get(op.companyId, second.agent_id)).status).toBe('terminated')
  })
})

describe('task filters', () => {
  it('resolves the assignee by name and the parent by key, and passes project, goal, mine and limit', async () => {
    const op = await operator(api, url, 'FLT')
    const agent = await op.client.agents.hire(op.companyId, { name: 'Filterer' })
    const project = await op.client.projects.create(op.companyId, { name: 'P' })
    const goal = await op.client.goals.create(op.companyId, { title: 'G' })
    const parent = await op.client.tasks.create(op.companyId, { title: 'Parent', project_id: project.id })
    await op.client.tasks.create(op.companyId, { title: 'Child', parent_id: parent.id, goal_id: goal.id, assignee_agent_id: agent.id })
    const keys = async (...args: string[]) => (await op.json('tasks', 'list', ...args)).map((t: { key: string }) => t.key)

    expect(await keys('--assignee', 'filterer')).toEqual(['FLT-2'])
    expect(await keys('--parent', 'flt-1')).toEqual(['FLT-2'])
    expect(await keys('--project', project.id)).toEqual(['FLT-1'])
    expect(await keys('--project', 'p')).toEqual(['FLT-1'])
    expect(await keys('--goal', goal.id)).toEqual(['FLT-2'])
    expect(await keys('--goal', 'g')).toEqual(['FLT-2'])
    const shown = (await op.run('tasks', 'show', 'FLT-2')).stdout
    expect(shown).toMatch(/Goal:\s+G\n/)
    expect(shown).toMatch(/Parent:\s+FLT-1 Parent\n/)
    expect(await keys('--mine', '--limit', '1')).toEqual(['FLT-2'])
    const tooMany = await op.run('tasks', 'list', '--limit', '1001')
    expect(tooMany.code).toBe(5)
    expect(tooMany.stderr).toMatch(/^VALIDATION_ERROR: limit/)
  })
})

describe('goals, projects, routines', () => {
  it('creates nested goals and lists them as a tree', async () => {
    const op = await operator(api, url, 'GOL')
    const top = await op.json('goals', 'create', 'Launch', '--status', 'planned', '--target-date', '2031-06-01')
    const child = await op.json('goals', 'create', 'Write docs', '--parent', 'launch')
    expect(child.parent_id).toBe(top.id)
    const tree = await op.run('goals', 'list')
    expect(tree.stdout).toMatch(/^Launch \[planned\] due 2031-06-01\n└── Write docs \[active\]/)
    expect((await op.run('goals', 'show', 'write docs')).stdout).toMatch(/Parent:\s+Launch\n/)
    expect(await op.json('goals', 'update', 'Write docs', '--status', 'achieved')).toMatchObject({ status: 'achieved' })
    const cycle = await op.run('goals', 'update', top.id, '--parent', child.id)
    expect(cycle.code).toBe(5)
    expect(cycle.stderr).toMatch(/^GOAL_CYCLE: /)
    expect((await op.run('goals', 'delete', top.id, '-y')).code).toBe(0)
    expect((await op.run('goals', 'show', top.id)).code).toBe(4)
  })

  it('creates, lists, shows and archives projects', async () => {
    const op = await operator(api, url, 'PRJ')
    const project = await op.json('projects', 'create', 'Website', '--repository', 'https://example.test/site.git', '--budget', '1200')
    expect(project).toMatchObject({ name: 'Website', status: 'active', monthly_budget_cents: 1200 })
    expect((await op.run('projects', 'list')).stdout).toMatch(/Website\s+active\s+https:\/\/example.test\/site.git\s+\$12\.00/)
    expect(await op.json('projects', 'update', 'website', '--status', 'archived')).toMatchObject({ status: 'archived' })
    expect((await op.run('projects', 'show', 'Website')).stdout).toMatch(/Status:\s+archived/)
    expect((await op.run('projects', 'show', project.id)).code).toBe(0)
    const empty = await op.run('projects', 'update', project.id)
    expect(empty.code).toBe(2)
    expect(empty.stderr).toMatch(/^USAGE_ERROR: Nothing to change/)
  })

  it('sets the checks, require_checks, merge_on_approve, the reviewer and the default branch of a project', async () => {
    const op = await operator(api, url, 'VWK')
    await op.client.agents.hire(op.companyId, { name: 'Checker' })
    const project = await op.json('projects', 'create', 'Shop', '--repository', 'https://example.test/shop.git',
      '--check', 'test=npm test -- --runInBand', '--check', 'lint=npx eslint .', '--check-timeout', 'lint=120',
      '--require-checks', 'on', '--merge-on-approve', 'on', '--reviewer', 'checker', '--default-branch', 'trunk')
    const checker = (await op.client.agents.list(op.companyId)).find((a) => a.name === 'Checker')!
    expect(project).toMatchObject({
      checks: [{ name: 'test', command: 'npm test -- --runInBand', timeout_seconds: 600 }, { name: 'lint', command: 'npx eslint .', timeout_seconds: 120 }],
      require_checks: true, merge_on_approve: true, reviewer_agent_id: checker.id, default_branch: 'trunk',
    })
    const shown = (await op.run('projects', 'show', 'Shop')).stdout
    expect(shown).toMatch(/Checks:\s+test: npm test -- --runInBand \(600 s\); lint: npx eslint \. \(120 s\)\n/)
    expect(shown).toMatch(/Require checks:\s+yes/)
    expect(shown).toMatch(/Reviewer:\s+Checker/)
    // An update replaces the checks whole; none clears them and the reviewer.
    expect(await op.json('projects', 'update', 'shop', '--require-checks', 'off', '--merge-on-approve', 'off')).toMatchObject({ require_checks: false, merge_on_approve: false })
    expect(await op.json('projects', 'update', 'shop', '--check', 'none', '--reviewer', 'none')).toMatchObject({ checks: [], reviewer_agent_id: null })
    expect((await op.client.projects.get(op.companyId, project.id)).checks).toEqual([])
    // Mistakes are named before any request (exit 2), or by the server (422, exit 5).
    for (const [args, message] of [
      [['--check', 'no-command'], /--check takes NAME=COMMAND, got "no-command"/],
      [['--check-timeout', 'test=5'], /--check-timeout goes with --check/],
      [['--check', 'test=true', '--check-timeout', 'other=5'], /--check-timeout names other, which no --check gives/],
      [['--check', 'test=true', '--check-timeout', 'test=soon'], /whole number of seconds/],
      [['--require-checks', 'yes'], /--require-checks must be on or off/],
    ] as const) {
      const refused = await op.run('projects', 'update', 'shop', ...args)
      expect(refused.code, args.join(' ')).toBe(2)
      expect(refused.stderr).toMatch(message)
    }
    const tooLong = await op.run('projects', 'update', 'shop', '--check', 'test=true', '--check-timeout', 'test=99999')
    expect(tooLong.code).toBe(5)
    expect(tooLong.stderr).toMatch(/timeout_seconds/)
  })

  it('creates a routine for an agent by name and triggers it (a task and a routine run)', async () => {
    const op = await operator(api, url, 'RTN')
    const agent = await op.client.agents.hire(op.companyId, { name: 'Reporter' })
    const routine = await op.json('routines', 'create', 'Weekly', 'report', '--agent', 'Reporter', '--cron', '0 9 * * 1')
    expect(routine).toMatchObject({ title: 'Weekly report', agent_id: agent.id, cron: '0 9 * * 1', enabled: true })
    // When it fires next (a Monday, 09:00 UTC), as the scheduler reads the cron.
    expect((await op.run('routines', 'list')).stdout).toMatch(/Weekly report\s+0 9 \* \* 1\s+Reporter\s+yes\s+\d{4}-\d\d-\d\d 09:00\s/)
    const monday = /Next run:\s+(\d{4}-\d\d-\d\d) 09:00\n/.exec((await op.run('routines', 'show', 'Weekly report')).stdout)?.[1]
    expect(new Date(`${monday}T00:00:00Z`).getUTCDay()).toBe(1)
    // The API stores any text; a schedule the scheduler cannot read is pointed out.
    const odd = await op.run('routines', 'create', 'Odd', '--agent', 'Reporter', '--cron', 'every day')
    expect(odd.code).toBe(0)
    expect(odd.stderr).toContain('Warning: the scheduler cannot read the schedule "every day" (expected 5 or 6 fields, got 2)')
    expect((await op.run('routines', 'list')).stdout).toMatch(/Odd\s+every day\s+Reporter\s+yes\s+invalid schedule\s/)
    expect((await op.run('routines', 'delete', 'Odd', '--yes')).code).toBe(0)
    // An agent's heartbeat likewise, on hire and on update; a readable one says nothing.
    const sleepy = await op.run('agents', 'hire', 'Sleepy', '--heartbeat-cron', 'at dawn')
    expect(sleepy.stderr).toContain('Warning: the scheduler cannot read the schedule "at dawn" (expected 5 or 6 fields, got 2): its heartbeat will not wake the agent')
    expect((await op.run('agents', 'update', 'Sleepy', '--heartbeat-cron', '0 6 * * *')).stderr).toBe('')
    expect((await op.run('agents', 'show', 'Sleepy')).stdout).toMatch(/Heartbeat cron:\s+0 6 \* \* \* \(next: \d{4}-\d\d-\d\d 06:00\)\n/)

    const listed = (await op.run('routines', 'list')).stdout
    expect(listed).toContain(routine.id.slice(0, 8))
    expect(listed).not.toContain(routine.id)

    // Found by the start of its id, as the list shows it, or by its title.
    const triggered = await op.run('routines', 'trigger', routine.id.slice(0, 8))
    expect(triggered.code).toBe(0)
    expect(triggered.stdout).toMatch(/^Triggered Weekly report: task RTN-1, run /)
    const runs = await op.client.runs.list(op.companyId, { agent_id: agent.id })
    expect(runs).toEqual([expect.objectContaining({ trigger: 'routine', routine_id: routine.id })])

    const other = await op.client.agents.hire(op.companyId, { name: 'Deputy' })
    const updated = await op.json('routines', 'update', 'weekly report', '--enabled', 'off', '--cron', '0 10 * * 2', '--agent', 'Deputy')
    expect(updated).toMatchObject({ id: routine.id, enabled: false, cron: '0 10 * * 2', agent_id: other.id })
    expect((await op.run('routines', 'show', 'Weekly report')).stdout).toMatch(/Cron:\s+0 10 \* \* 2\nEnabled:\s+no\nNext run:\s+-\nAgent:\s+Deputy\n/)
    const nothing = await op.run('routines', 'update', 'Weekly report')
    expect(nothing.stderr).toMatch(/^USAGE_ERROR: Nothing to change/)
    const badSwitch = await op.run('routines', 'update', 'Weekly report', '--enabled', 'maybe')
    expect(badSwitch.stderr).toMatch(/^USAGE_ERROR: --enabled must be on or off/)

    expect((await op.run('routines', 'delete', 'Weekly report', '--yes')).stdout).toBe('Deleted routine Weekly report\n')
    expect(await op.client.routines.list(op.companyId)).toEqual([])
    const gone = await op.run('routines', 'show', routine.id.slice(0, 8))
    expect(gone.code).toBe(4)
    expect(gone.stderr).toMatch(/^NOT_FOUND: Routine not found/)

    const missing = await op.run('routines', 'create', 'No cron', '--agent', 'Reporter')
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/^USAGE_ERROR: --cron is required/)
  })
})

describe('runs', () => {
  it('lists runs, shows one with its transcript, and cancels (RUN_FINISHED afterwards)', async () => {
    const op = await operator(api, url, 'RUN')
    const agent = await op.client.agents.hire(op.companyId, { name: 'Runner Bot' })
    await op.client.tasks.create(op.companyId, { title: 'Work', assignee_agent_id: agent.id })
    const claimed = await op.client.runs.claim(op.companyId, { runner_id: 'test-runner' })
    await op.client.runs.report(op.companyId, claimed!.run.id, {
      runner_id: 'test-runner',
      status: 'succeeded',
      cost_cents: 7,
      transcript: [{ role: 'tool', text: 'ran the tests' }, { text: 'all green' }],
    })
    const listed = await op.run('runs', 'list', '--agent', 'Runner Bot')
    // Names, task keys and the runner, never raw ids: a run is shown by the start of its id.
    expect(listed.stdout.split('\n')[0]).toMatch(/^RUN\s+AGENT\s+TASK\s+STATUS\s+TRIGGER\s+RUNNER\s+CREATED\s+TOOK\s+COST$/)
    expect(listed.stdout).toMatch(new RegExp(`^${claimed!.run.id.slice(0, 8)}\\s+Runner Bot\\s+RUN-1\\s+succeeded\\s+assignment\\s+test-runner\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\s`, 'm'))
    expect(listed.stdout).not.toContain(claimed!.run.id)
    expect(listed.stdout).not.toContain(agent.id)
    expect(listed.stdout).toContain('$0.07')

    const shown = await op.run('runs', 'show', claimed!.run.id.slice(0, 8))
    expect(shown.stdout).toMatch(/Task:\s+RUN-1 Work/)
    expect(shown.stdout).toMatch(/Runner:\s+test-runner/)
    expect(shown.stdout).toContain('Transcript (2 entries)')
    expect(shown.stdout).toMatch(/\[tool\] ran the tests\n.*\[agent\] all green/)
    expect((await op.json('runs', 'show', claimed!.run.id)).transcript).toHaveLength(2)

    const finished = await op.run('runs', 'cancel', claimed!.run.id, '--yes')
    expect(finished.code).toBe(5)
    expect(finished.stderr).toMatch(/^RUN_FINISHED: /)
    const queued = await op.client.agents.wake(op.companyId, agent.id)
    // Without --yes and without a terminal to ask on, nothing is cancelled (exit 2).
    const refused = await op.run('runs', 'cancel', queued.id)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/^USAGE_ERROR: Cancel run .*"shopfloor runs cancel" needs --yes/)
    expect((await op.json('runs', 'show', queued.id)).status).toBe('queued')
    expect(await op.json('runs', 'cancel', queued.id, '--yes')).toMatchObject({ status: 'cancelled' })
    expect(await op.json('runs', 'list', '--status', 'cancelled')).toEqual([expect.objectContaining({ id: queued.id })])
  })

  it('says why a queued run waits when no online runner runs its agent\'s adapter', async () => {
    const op = await operator(api, url, 'WAI')
    const agent = await op.client.agents.hire(op.companyId, { name: 'Cody', adapter: 'agent_cli_2' })
    const queued = await op.client.agents.wake(op.companyId, agent.id)
    expect(await op.client.runs.claim(op.companyId, { runner_id: 'claude-box', adapters: ['agent_cli_1'] })).toBeNull()
    const reason = /No connected runner can run Codex: install it on claude-box or pick another agent type .*claude-box: Claude Code/
    const listed = await op.run('runs', 'list')
    expect(listed.stdout).toMatch(new RegExp(`^${queued.id.slice(0, 8)} waits: ${reason.source}`, 'm'))
    expect((await op.run('runs', 'show', queued.id)).stdout).toMatch(new RegExp(`Waiting:\\s+${reason.source}`))
    expect((await op.json('runs', 'show', queued.id)).waiting_reason).toMatch(reason)
  })
})

describe('dashboard and costs', () => {
  it('shows counts, spend and the daily series; a range other than 7, 14, 30 is exit code 5', async () => {
    const op = await operator(api, url, 'DSH')
    const agent = await op.client.agents.hire(op.companyId, { name: 'Spender' })
    await op.client.tasks.create(op.companyId, { title: 'Blocked one', status: 'blocked' })
    await op.client.tasks.create(op.companyId, { title: 'Paid work', assignee_agent_id: agent.id })
    const claimed = await op.client.runs.claim(op.companyId, { runner_id: 'r' })
    await op.client.runs.report(op.companyId, claimed!.run.id, { runner_id: 'r', status: 'succeeded', cost_cents: 250 })

    const data = await op.json('dashboard', '--days', '7')
    expect(data).toMatchObject({ range_days: 7, tasks_blocked: 1, spend_mtd_cents: 250, agents_total: 1 })
    expect(data.series).toHaveLength(7)
    const text = await op.run('dashboard')
    expect(text.stdout).toMatch(/Spend this month:\s+\$2\.50 of no limit/)
    expect(text.stdout).toContain('Last 14 days')
    const bad = await op.run('dashboard', '--days', '9')
    expect(bad.code).toBe(5)
    expect(bad.stderr).toMatch(/^VALIDATION_ERROR: /)

    const costs = await op.json('costs')
    expect(costs).toMatchObject({ total_cents: 250, by_agent: [expect.objectContaining({ agent_id: agent.id, cost_cents: 250 })] })
    expect((await op.run('costs')).stdout).toMatch(/Spender\s+1\s+\d+\s+\d+\s+\$2\.50/)
    const month = await op.run('costs', '--month', '2026-13')
    expect(month.code).toBe(5)
    expect(month.stderr).toMatch(/^INVALID_MONTH: /)
  })
})

describe('inbox', () => {
  it('lists pending approvals, blocked and in-review tasks and failed runs, by name and key', async () => {
    const op = await operator(api, url, 'INB')
    const agent = await op.client.agents.hire(op.companyId, { name: 'Fumbler' })
    await op.client.tasks.create(op.companyId, { title: 'Doomed', assignee_agent_id: agent.id })
    const claimed = await op.client.runs.claim(op.companyId, { runner_id: 'r' })
    await op.client.runs.report(op.companyId, claimed!.run.id, { runner_id: 'r', status: 'failed', error: 'tool crashed' })
    await op.client.tasks.create(op.companyId, { title: 'Stuck on access', status: 'blocked' })
    await op.client.tasks.create(op.companyId, { title: 'Check my work', status: 'in_review', assignee_agent_id: agent.id })
    await op.run('agents', 'hire', 'Hopeful', '--request-approval')

    const box = await op.json('inbox')
    expect(box.approvals).toEqual([expect.objectContaining({ type: 'hire_agent', status: 'pending' })])
    expect(box.tasks.map((t: { key: string }) => t.key).sort()).toEqual(['INB-2', 'INB-3'])
    expect(box.failed_runs).toEqual([expect.objectContaining({ id: claimed!.run.id, error: 'tool crashed' })])

    const text = (await op.run('inbox')).stdout
    expect(text).toContain('Approvals pending (1)')
    expect(text).toMatch(new RegExp(`^${box.approvals[0].id.slice(0, 8)}\\s+hire_agent\\s+Hopeful\\s`, 'm'))
    expect(text).toMatch(/^INB-3\s+in_review\s+Fumbler\s+Check my work$/m)
    expect(text).toMatch(/^INB-2\s+blocked\s+-\s+Stuck on access$/m)
    expect(text).toMatch(new RegExp(`^${claimed!.run.id.slice(0, 8)}\\s+Fumbler\\s+INB-1\\s+.*tool crashed$`, 'm'))
    expect(text).not.toContain(agent.id)
  })
})

describe('webhooks', () => {
  it('subscribes (the secret shown once), lists, shows, updates, lists deliveries, retries one and deletes', async () => {
    const op = await operator(api, url, 'WHK')
    api.ctx.config.webhooksAllowPrivate = true
    const created = await op.run('webhooks', 'create', 'http://127.0.0.1:9/hook', '--event', 'task.*', '--event', 'run.created', '--description', 'CI bot')
    expect(created.code).toBe(0)
    const secret = /Signing secret .*: (whsec_\S+)/.exec(created.stdout)?.[1]
    expect(secret).toBeTruthy()
    const [hook] = await op.client.webhooks.list(op.companyId)
    expect(hook).toMatchObject({ url: 'http://127.0.0.1:9/hook', events: ['task.*', 'run.created'], enabled: true, description: 'CI bot' })
    expect(created.stdout).toContain(`Created webhook ${hook.id.slice(0, 8)} for http://127.0.0.1:9/hook`)

    const listed = (await op.run('webhooks', 'list')).stdout
    expect(listed).toMatch(new RegExp(`^${hook.id.slice(0, 8)}\\s+http://127.0.0.1:9/hook\\s+task\\.\\*,run\\.created\\s+on\\s+CI bot$`, 'm'))
    expect(listed).not.toContain(secret)
    const shown = (await op.run('webhooks', 'show', 'http://127.0.0.1:9/hook')).stdout
    expect(shown).toMatch(/Events:\s+task\.\*, run\.created\nEnabled:\s+on\n/)
    expect(shown).not.toContain(secret)

    await op.client.tasks.create(op.companyId, { title: 'Announced' })
    const deliveries = await op.run('webhooks', 'deliveries', hook.id.slice(0, 8))
    expect(deliveries.stdout).toMatch(/^DELIVERY\s+EVENT\s+STATUS\s+ATTEMPTS\s+LAST\s+CREATED\s+NEXT ATTEMPT$/m)
    const [delivery] = await op.client.webhooks.deliveries(op.companyId, hook.id)
    expect(deliveries.stdout).toMatch(new RegExp(`^${delivery.id.slice(0, 8)}\\s+task\\.created\\s+pending\\s+0\\s`, 'm'))
    const retried = await op.run('webhooks', 'retry', hook.id, delivery.id.slice(0, 8))
    expect(retried.stdout).toBe(`Delivery ${delivery.id.slice(0, 8)} (task.created) is pending again\n`)
    const unknown = await op.run('webhooks', 'retry', hook.id, 'ffffffff')
    expect(unknown.code).toBe(4)
    expect(unknown.stderr).toMatch(/^NOT_FOUND: Delivery not found: ffffffff/)

    expect(await op.json('webhooks', 'update', hook.id.slice(0, 8), '--enabled', 'off', '--description', 'none')).toMatchObject({ enabled: false, description: null })
    // Its address by --endpoint (--url is the server's), its events repeatable or comma-separated.
    expect(await op.json('webhooks', 'update', hook.id, '--endpoint', 'http://127.0.0.1:9/moved', '--event', 'task.created', '--event', 'run.*,approval.*'))
      .toMatchObject({ url: 'http://127.0.0.1:9/moved', events: ['task.created', 'run.*', 'approval.*'] })
    const refused = await op.run('webhooks', 'update', hook.id, '--event', 'nonsense')
    expect(refused.code).toBe(5)
    expect(refused.stderr).toMatch(/^VALIDATION_ERROR: events\.0/)
    expect((await op.run('webhooks', 'delete', hook.id.slice(0, 8), '--yes')).stdout).toBe(`Deleted webhook ${hook.id.slice(0, 8)} for http://127.0.0.1:9/moved\n`)
    expect(await op.client.webhooks.list(op.companyId)).toEqual([])
    expect((await op.run('webhooks', 'show', hook.id)).code).toBe(4)
  })
})

describe('activity and keys', () => {
  it('shows the audit trail with field-level changes, newest first', async () => {
    const op = await operator(api, url, 'ACT')
    await op.client.tasks.create(op.companyId, { title: 'Audited' })
    await op.client.tasks.update(op.companyId, 'ACT-1', { status: 'done' })
    const rows = await op.json('activity', '--limit', '1')
    expect(rows).toEqual([expect.objectContaining({ entity_type: 'task', changes: expect.objectContaining({ status: ['todo', 'done'] }) })])
    const text = await op.run('activity')
    expect(text.stdout).toContain('status: todo → done')
  })

  it('creates, lists and revokes API keys (a second revoke is 4)', async () => {
    const op = await operator(api, url, 'KEY')
    const created = await op.json('keys', 'create', 'deploy', 'bot', '--expires-in-days', '30')
    expect(created).toMatchObject({ name: 'deploy bot', key: expect.stringMatching(/^svc_live_.{32}$/) })
    expect((await op.run('keys', 'list')).stdout).toContain(created.prefix)
    expect((await op.run('keys', 'revoke', created.id, '--yes')).code).toBe(0)
    expect(await op.json('keys', 'list')).toEqual([])
    expect((await op.run('keys', 'revoke', created.id, '--yes')).code).toBe(4)
  })

  it('keys create --company makes a key that acts in that company only; the current company alone does not limit', async () => {
    const op = await operator(api, url, 'KYC')
    const other = await op.client.companies.create({ name: 'Elsewhere KYC', task_prefix: 'ELS' })
    const limited = await op.run('keys', 'create', 'runner', '--company', 'kyc')
    expect(limited.code).toBe(0)
    expect(limited.stdout).toContain('for Company KYC only')
    const key = limited.stdout.trim().split('\n').at(-1)!
    const asKey = new ShopfloorClient({ baseUrl: url, credentials: { apiKey: key }, retry: false })
    expect((await asKey.companies.list()).map((c) => c.id)).toEqual([op.companyId])
    await expect(asKey.tasks.list(other.id)).rejects.toMatchObject({ status: 404 })
    expect((await op.json('keys', 'list')).find((k: { name: string }) => k.name === 'runner').company_id).toBe(op.companyId)
    expect((await op.run('keys', 'list')).stdout).toMatch(new RegExp(`runner .*${op.companyId}`))
    // The profile's current company does not limit a key made without --company.
    expect((await op.json('keys', 'create', 'everywhere')).company_id).toBeNull()
  })
})

describe('--help', () => {
  const paths = ENTRIES.flatMap((e) => (isGroup(e) ? [[e.name], ...e.commands.map((c) => [e.name, c.name])] : [[e.name]]))
  let op: Operator
  beforeAll(async () => {
    op = await operator(api, url, 'HLP')
  })

  it.each(paths)('shopfloor %s --help prints its usage and exits 0', async (...path) => {
    const out = await op.run(...path, '--help')
    expect(out.code).toBe(0)
    expect(out.stdout).toMatch(new RegExp(`^Usage: shopfloor ${path.join(' ')}`))
  })

  it('no command has an option of the name of a global one (the global one would take its value: --url sent requests elsewhere)', () => {
    const globals = new Set(GLOBAL_OPTIONS.map((o) => o.name))
    const commands = ENTRIES.flatMap((e) => (isGroup(e) ? e.commands.map((c) => ({ path: `${e.name} ${c.name}`, options: c.options ?? [] })) : [{ path: e.name, options: e.options ?? [] }]))
    expect(commands.flatMap((c) => c.options.filter((o) => globals.has(o.name)).map((o) => `${c.path} --${o.name}`))).toEqual([])
  })

  it('lists every command in shopfloor help', async () => {
    const out = await op.run('help')
    for (const entry of ENTRIES) expect(out.stdout).toContain(`  ${entry.name}`)
  })
})
