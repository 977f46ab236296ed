// Agents run confined, tried as an attacker would: a real runner with a real bubblewrap sandbox
// runs an agent command that looks for the runner's key and secrets everywhere it might be
// (its parent's environment, every process's, the runner's configuration, cache and home, other
// agents' homes, the key file) and tries to kill the runner. It finds none of them and the runner
// goes on; the same agent still writes its folder, commits with git as itself and reaches a local
// HTTP server. An agent CLI (the Claude Code stand-in) runs inside too and uses the Shopfloor MCP
// server from there. Without bubblewrap, the runner refuses agents that are processes.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, tempDir } from '../server-process.ts'
import { AGENT_NICENESS } from '../../src/runner/sandbox.ts'
import {
  alive,
  makeWorkspace,
  planDescription,
  type RunnerProcess,
  standIns,
  startRunner,
  startTestServer,
  type TestServer,
  waitFor,
  type Workspace,
} from './harness.ts'

let server: TestServer
const runners: RunnerProcess[] = []

beforeAll(async () => {
  // A server of its own: a project's repository here is a folder on this machine (file://),
  // which only a server with ALLOW_LOCAL_REPOSITORIES takes.
  server = await startTestServer({ ALLOW_LOCAL_REPOSITORIES: 'true' })
})

afterAll(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop('SIGKILL')))
  await server?.close()
})

const CANARY = `canary-${Math.random().toString(36).slice(2)}`
const RUNNER_ARGS = ['--heartbeat-seconds', '1', '--poll-seconds', '5', '--flush-seconds', '0.2']

function runner(ws: Workspace, args: string[], env: Record<string, string>, sandbox = true): RunnerProcess {
  const r = startRunner(['--url', server.url, '--company', ws.companyId, ...RUNNER_ARGS, ...args], env, { sandbox })
  runners.push(r)
  return r
}

async function finished(ws: Workspace, taskId: string) {
  const run = await waitFor(async () => {
    const [latest] = await ws.client.runs.list(ws.companyId, { task_id: taskId })
    return latest && ['succeeded', 'failed'].includes(latest.status) ? latest : null
  }, 30_000)
  return ws.client.runs.get(ws.companyId, run.id)
}

/** Writes `text` to a new file (and its folders). */
function plant(file: string, text: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
  return file
}

describe('an agent command in the sandbox', () => {
  let ws: Workspace
  let r: RunnerProcess
  let work: string
  let folders: Record<'config' | 'cache' | 'homes' | 'runnerHome', string>
  let listener: http.Server
  let port = 0
  const heard: string[] = []

  beforeAll(async () => {
    ws = await makeWorkspace(server.url)
    listener = http.createServer((req, res) => {
      heard.push(req.url ?? '')
      res.end('pong')
    })
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
    port = (listener.address() as AddressInfo).port

    // Every place the runner keeps something of its own, each holding the canary.
    work = tempDir('shopfloor-sandbox-work-')
    folders = {
      // Inside the work folder, which the agent sees: hidden all the same.
      config: path.join(work, '.config'),
      cache: tempDir('shopfloor-sandbox-cache-'),
      homes: tempDir('shopfloor-sandbox-homes-'),
      runnerHome: tempDir('shopfloor-sandbox-runner-home-'),
    }
    plant(path.join(folders.config, 'shopfloor', 'runner.json'), JSON.stringify({ note: CANARY }))
    plant(path.join(folders.config, 'shopfloor', 'credentials.json'), JSON.stringify({ refresh_token: CANARY }))
    plant(path.join(folders.cache, 'repos', 'other', 'secret.txt'), CANARY)
    plant(path.join(folders.homes, 'another-agent', '.claude', '.credentials.json'), CANARY)
    plant(path.join(folders.runnerHome, '.gitconfig'), `[user]\n\tname = ${CANARY}\n[credential]\n\thelper = store --file ${folders.runnerHome}/.git-credentials\n`)
    plant(path.join(folders.runnerHome, '.git-credentials'), `https://user:${CANARY}@example.test\n`)

    r = runner(ws, ['--agent-command', 'sh ./attack.sh', '--workdir', work, '--cache-dir', folders.cache, '--agent-homes', folders.homes], {
      SHOPFLOOR_API_KEY: ws.apiKey, SHOPFLOOR_CANARY: CANARY, XDG_CONFIG_HOME: folders.config, HOME: folders.runnerHome,
    })
    await waitFor(() => r.logs().find((l) => l.msg === 'runner started'), 30_000)
  })

  afterAll(() => listener?.close())

  it('finds no key or secret of the runner, cannot kill it, and still works: its folder, git, a local server', async () => {
    const workerPid = r.workerPid()!
    // The attack, as a prompt-injected agent would run it; what it finds goes to found.txt.
    fs.writeFileSync(path.join(work, 'attack.sh'), `
exec > found.txt 2>&1
echo "== parent $PPID"; tr '\\0' '\\n' < /proc/$PPID/environ
echo "== every process"; for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < "$f"; done
echo "== config"; cat "${folders.config}"/shopfloor/* ~/.config/shopfloor/* "$XDG_CONFIG_HOME"/shopfloor/*
echo "== cache"; find "${folders.cache}" -type f -exec cat {} +
echo "== homes"; find "${folders.homes}" -type f -exec cat {} +
echo "== runner home"; cat "${folders.runnerHome}"/.gitconfig "${folders.runnerHome}"/.git-credentials; git config --global --list
echo "== kill"; kill -KILL ${workerPid} ${r.child.pid}; echo "kill: $?"
echo "== priority"; echo "niceness $(cut -d' ' -f19 /proc/$$/stat)"; renice -n 0 -p $$ > /dev/null 2>&1; echo "renice to 0: $?"
echo "== own folder"; echo written > written.txt && echo "wrote: $?"
echo "== git"; rm -rf repo; git init -q repo && cd repo && echo x > f && git add f && git commit -qm "agent work" && git log --format='%an <%ae>'; cd ..
echo "== network"; node -e "fetch('http://127.0.0.1:${port}/from-the-agent').then((r) => r.text()).then(console.log, (e) => console.log('fetch failed', e.message))"
echo "== done"
`)
    const agent = await ws.client.agents.hire(ws.companyId, { name: 'Mallory', adapter: 'process' })
    const task = await ws.client.tasks.create(ws.companyId, { title: 'Read the issue', assignee_agent_id: agent.id })
    const run = await finished(ws, task.id)
    const found = fs.readFileSync(path.join(work, 'found.txt'), 'utf8')

    expect(run.status).toBe('succeeded')
    expect(found).toContain('== done')
    for (const secret of [ws.apiKey, 'svc_live_', 'svc_test_', CANARY, 'SHOPFLOOR_CANARY']) expect(found, secret).not.toContain(secret)
    // The runner is untouched: both its processes live and it goes on taking work.
    expect(alive(workerPid)).toBe(true)
    expect(alive(r.child.pid!)).toBe(true)
    // It runs below the runner's priority and cannot raise its own (no capability inside).
    expect(found).toContain(`niceness ${AGENT_NICENESS}\n`)
    expect(found).toMatch(/renice to 0: [1-9]/)
    // Its folder, git as itself (not the runner user's identity), the local server.
    expect(fs.readFileSync(path.join(work, 'written.txt'), 'utf8')).toBe('written\n')
    expect(found).toContain(`Mallory <${agent.id}@agents.invalid>`)
    expect(found).toContain('pong')
    expect(heard).toContain('/from-the-agent')
    // The first transcript line says how it ran.
    expect(run.transcript![0].text).toContain('In a bubblewrap sandbox')

    const next = await ws.client.tasks.create(ws.companyId, { title: 'Again', assignee_agent_id: agent.id })
    expect((await finished(ws, next.id)).status).toBe('succeeded')
  })

  it('the process that starts agents holds no key in its environment', () => {
    const environ = fs.readFileSync(`/proc/${r.workerPid()}/environ`, 'utf8')
    expect(environ).toContain(`SHOPFLOOR_CANARY=${CANARY}`) // it is the runner's environment
    expect(environ).not.toContain(ws.apiKey)
  })
})

describe('an agent in its project\'s repository', () => {
  it('commits there, but cannot change what makes the runner\'s own git run commands', async () => {
    const repo = tempDir('shopfloor-sandbox-repo-')
    const git = (cwd: string, ...args: string[]) =>
      execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test' } })
    git(repo, 'init', '-q', '-b', 'main')
    plant(path.join(repo, 'README.md'), 'widgets\n')
    git(repo, 'add', 'README.md')
    git(repo, 'commit', '-q', '-m', 'first')
    const cache = tempDir('shopfloor-sandbox-cache-')
    const scripts = tempDir('shopfloor-sandbox-scripts-')
    // Outside the sandbox: only a command the runner's own git ran (unconfined) could make it.
    const pwned = path.join(tempDir('shopfloor-sandbox-marker-'), 'pwned')
    // The run's repository is the agent's own (its .git inside its folder): it may write its
    // config and hooks, and leave what would make a later git run commands: a hook, fsmonitor, a
    // filter for every file, and a commondir naming a git folder of its making with that filter.
    const attack = plant(path.join(scripts, 'attack.sh'), `
own=$(git rev-parse --path-format=absolute --git-dir)
echo change > README.md && git commit -qam "agent change" && git branch agent-work && echo "committed"
printf '#!/bin/sh\\ntouch ${pwned}\\n' > "$own/hooks/post-checkout" && chmod +x "$own/hooks/post-checkout" && printf '#!/bin/sh\\ntouch ${pwned}\\n' > "$own/hooks/pre-commit" && chmod +x "$own/hooks/pre-commit"
git config core.fsmonitor 'touch ${pwned}; false'
git config filter.evil.clean 'touch ${pwned}; cat' && echo '* filter=evil' > .gitattributes
echo "gitdir: /tmp/evil" > .git || echo "dot-git refused"
mkdir evil && cp -r "$own/objects" "$own/refs" "$own/config" evil/ && mkdir evil/hooks && cp "$own/hooks/pre-commit" evil/hooks/ && echo "$PWD/evil" > "$own/commondir" && echo "commondir written"
echo left > left.txt
`)
    const ws = await makeWorkspace(server.url)
    const project = await ws.client.projects.create(ws.companyId, { name: 'Widgets', repository: `file://${repo}` })
    runner(ws, ['--allow-local-repositories', '--cache-dir', cache, '--agent-read', scripts, '--agent-command', `sh ${attack}`], { SHOPFLOOR_API_KEY: ws.apiKey })
    const agent = await ws.client.agents.hire(ws.companyId, { name: 'Committer', adapter: 'process' })
    const task = await ws.client.tasks.create(ws.companyId, { title: 'Change the readme', assignee_agent_id: agent.id, project_id: project.id })
    const run = await finished(ws, task.id)
    expect(run.status).toBe('succeeded')
    for (const line of ['committed', 'dot-git refused', 'commondir written']) expect(run.summary).toContain(line)
    // The runner committed what the agent left and pushed, with its own git: nothing the agent set ran.
    expect(run.changes).toMatchObject({ pushed: true, files: expect.arrayContaining([expect.objectContaining({ path: 'left.txt' })]) })
    expect(fs.existsSync(pwned)).toBe(false)

    const [clone] = fs.readdirSync(path.join(cache, 'repos')).map((name) => path.join(cache, 'repos', name))
    expect(git(clone, 'log', '--all', '--format=%s %an <%ae>')).toContain(`agent change Committer <${agent.id}@agents.invalid>`)
    expect(git(repo, 'show', `shopfloor/${task.key}:left.txt`)).toBe('left\n')
    expect(fs.readFileSync(path.join(clone, '.git', 'config'), 'utf8')).not.toMatch(/fsmonitor|filter/)
    expect(fs.existsSync(path.join(clone, '.git', 'hooks', 'post-checkout'))).toBe(false)
    // The runner removed the run's repository after the run, with its own git.
    await waitFor(() => !fs.existsSync(path.join(cache, 'worktrees', run.id)), 10_000)
  })
})

describe('the key from a file', () => {
  it('is read by the runner and hidden from the agent, even in a folder the agent sees', async () => {
    const ws = await makeWorkspace(server.url)
    const shared = tempDir('shopfloor-sandbox-shared-')
    const keyFile = plant(path.join(shared, 'runner.key'), `${ws.apiKey}\n`)
    const config = plant(path.join(shared, 'conf', 'runner.json'), JSON.stringify({ note: CANARY }))
    const work = tempDir('shopfloor-sandbox-work-')
    const r = runner(ws, ['--api-key-file', keyFile, '--config', config, '--agent-read', shared, '--workdir', work,
      '--agent-command', `ls "${shared}" "${shared}/conf" > seen.txt; cat "${keyFile}" "${config}" >> seen.txt 2>&1; echo read`], {})
    const agent = await ws.client.agents.hire(ws.companyId, { name: 'Keyless', adapter: 'process' })
    const task = await ws.client.tasks.create(ws.companyId, { title: 'Look around', assignee_agent_id: agent.id })
    const run = await finished(ws, task.id)
    expect(run.status).toBe('succeeded')
    const seen = fs.readFileSync(path.join(work, 'seen.txt'), 'utf8')
    expect(seen).toContain('runner.key') // the folder is there, the key and the config file cannot be read
    expect(seen).not.toContain(ws.apiKey)
    expect(seen).not.toContain(CANARY)
    expect(fs.readFileSync(`/proc/${r.workerPid()}/environ`, 'utf8')).not.toContain(ws.apiKey)
  })
})

describe('the key in the environment, agents run with --no-sandbox', () => {
  it('is in no environment of the runner\'s processes that the agent, as the same user, can read', async () => {
    const ws = await makeWorkspace(server.url)
    const work = tempDir('shopfloor-sandbox-work-')
    // Every environment this user may read: the runner's first process (started with the key), its worker, the agent.
    const r = runner(ws, ['--workdir', work, '--agent-command', 'for f in /proc/[0-9]*/environ; do tr \'\\0\' \'\\n\' < "$f"; done > seen.txt 2>/dev/null; echo read'],
      { SHOPFLOOR_API_KEY: ws.apiKey, SHOPFLOOR_CANARY: CANARY }, false)
    const agent = await ws.client.agents.hire(ws.companyId, { name: 'Unconfined', adapter: 'process' })
    const task = await ws.client.tasks.create(ws.companyId, { title: 'Look around', assignee_agent_id: agent.id })
    const run = await finished(ws, task.id)
    expect(run.status).toBe('succeeded')
    const seen = fs.readFileSync(path.join(work, 'seen.txt'), 'utf8')
    expect(seen).toContain(`SHOPFLOOR_CANARY=${CANARY}`) // it read the runner's environments
    expect(seen).not.toContain(ws.apiKey)
    // The first process: the variable is there, its value blanked.
    const first = fs.readFileSync(`/proc/${r.child.pid}/environ`, 'utf8')
    expect(first).toContain(`SHOPFLOOR_CANARY=${CANARY}`)
    expect(first).not.toContain(ws.apiKey)
    expect(r.output()).not.toContain('could not be blanked')
  })
})

describe('--agent-network off', () => {
  it('cuts the agent off every network, and a work folder holding the runner\'s home is pointed out', async () => {
    const ws = await makeWorkspace(server.url)
    const heard: string[] = []
    const listener = http.createServer((req, res) => (heard.push(req.url ?? ''), res.end('pong')))
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
    const { port } = listener.address() as AddressInfo
    const work = tempDir('shopfloor-sandbox-work-')
    const fetchIt = `fetch('http://127.0.0.1:${port}/offline').then(() => console.log('reached'), () => console.log('unreachable'))`
    const r = runner(ws, ['--agent-network', 'off', '--workdir', work, '--agent-command', `node -e "${fetchIt}"`], {
      SHOPFLOOR_API_KEY: ws.apiKey, HOME: path.join(work, 'home'),
    })
    try {
      const agent = await ws.client.agents.hire(ws.companyId, { name: 'Offline', adapter: 'process' })
      const task = await ws.client.tasks.create(ws.companyId, { title: 'Call home', assignee_agent_id: agent.id })
      const run = await finished(ws, task.id)
      expect(run.summary).toBe('unreachable')
      expect(heard).toEqual([])
      expect(run.transcript![0].text).toContain('network off')
      const warning = r.logs().find((l) => l.level === 40 && /hold this user's home/.test(l.msg))
      expect(warning.folders).toEqual([work])
    } finally {
      listener.close()
    }
  })
})

describe('an agent CLI in the sandbox', () => {
  it('starts, reaches the Shopfloor MCP server from inside and acts through it', async () => {
    const ws = await makeWorkspace(server.url)
    const clis = standIns(['claude'])
    const out = path.dirname(clis.bin) + '/out'
    runner(ws, ['--agent-read', path.join(ROOT, 'test', 'runner', 'stand-ins'), '--agent-write', out], {
      SHOPFLOOR_API_KEY: ws.apiKey, PATH: `${clis.bin}:${process.env.PATH}`, ANTHROPIC_API_KEY: 'sk-ant-test',
    })
    const agent = await ws.client.agents.hire(ws.companyId, { name: 'Claude inside', adapter: 'agent_cli_1' })
    const task = await ws.client.tasks.create(ws.companyId, {
      title: 'Report progress', assignee_agent_id: agent.id, description: planDescription({ mcp: 'Progress from inside.', reply: 'Done.' } as any),
    })
    const run = await finished(ws, task.id)
    expect(run.status).toBe('succeeded')
    expect(run.transcript![0].text).toContain('In a bubblewrap sandbox')
    const comments = await ws.client.comments.list(ws.companyId, task.id)
    expect(comments.find((c) => c.body === 'Progress from inside.')).toMatchObject({ author_agent_id: agent.id, run_id: run.id })
    expect(clis.seen(run.id).env.HOME).toBe(clis.seen(run.id).env.SHOPFLOOR_CONFIG_DIR)
  })
})

describe('without bubblewrap', () => {
  it('the runner says so and refuses agents that are processes, unless --no-sandbox', async () => {
    const ws = await makeWorkspace(server.url)
    const r = runner(ws, ['--bwrap', '/nonexistent/bwrap', '--agent-command', 'echo hi', '--runner-id', 'no-bwrap'], { SHOPFLOOR_API_KEY: ws.apiKey })
    const started = await waitFor(() => r.logs().find((l) => l.msg === 'runner started'), 30_000)
    expect(started.adapters).toEqual(['simulated', 'http'])
    const refusal = r.logs().find((l) => l.level >= 50 && /cannot be confined/.test(l.msg))
    expect(refusal.msg).toContain('bubblewrap (/nonexistent/bwrap) is not installed')
    expect(refusal.msg).toContain('--no-sandbox')
    expect(refusal.refused).toEqual(expect.arrayContaining(['process']))

    const agent = await ws.client.agents.hire(ws.companyId, { name: 'Waiting', adapter: 'process' })
    const task = await ws.client.tasks.create(ws.companyId, { title: 'Wait', assignee_agent_id: agent.id })
    await new Promise((resolve) => setTimeout(resolve, 2000))
    const [queued] = await ws.client.runs.list(ws.companyId, { task_id: task.id })
    expect(queued.status).toBe('queued')

    const unconfined = runner(ws, ['--bwrap', '/nonexistent/bwrap', '--agent-command', 'echo hi'], { SHOPFLOOR_API_KEY: ws.apiKey }, false)
    await waitFor(() => unconfined.logs().find((l) => l.msg.startsWith('agents run without a sandbox')), 30_000)
    const run = await finished(ws, task.id)
    expect(run.status).toBe('succeeded')
    expect(run.transcript![0].text).toContain('Without a sandbox (--no-sandbox)')
  })
})
