// The packaging files (Dockerfile, compose.yaml and deploy/haproxy.cfg, the Kubernetes manifests,
// the systemd units) checked without a container engine: each is parsed, and every command,
// flag, port, variable, path and probe it names must exist in the project as it stands, so that
// a renamed variable or a moved file fails here rather than in someone's deployment. HAProxy's
// and systemd's own checkers read their files too.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import semver from 'semver'
import { describe, expect, it } from 'vitest'
import YAML from 'yaml'
import { PROCESS_COMMANDS } from '../../src/cli/client/help.ts'
import { RUNNER_USAGE } from '../../src/runner/options.ts'
import { ROOT } from '../server-process.ts'

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8')
const exists = (file: string) => fs.existsSync(path.join(ROOT, file))
const pkg = JSON.parse(read('package.json'))
const openapi = JSON.parse(read('openapi.json'))

/** Every variable the programs read: the server's configuration, the runner's, Node's own. */
const KNOWN_VARIABLES = new Set([
  ...[...read('src/server/config.ts').matchAll(/'([A-Z][A-Z0-9_]{2,})'/g)].map((m) => m[1]),
  ...[...read('src/runner/options.ts').matchAll(/\b(SHOPFLOOR_[A-Z0-9_]+)/g)].map((m) => m[1]),
  'NODE_ENV',
])
const COMMANDS = new Set(PROCESS_COMMANDS.map((c) => c.name))
const RUNNER_FLAGS = new Set(RUNNER_USAGE.match(/--[a-z0-9-]+/g))
const SCHEDULER_FLAGS = new Set(['--refresh-seconds', '--help'])

/** A command line of the executable: its command exists and so does each flag it passes. */
function checkCommand(args: string[], where: string): void {
  const [command, ...rest] = args
  expect(COMMANDS.has(command), `${where}: command ${command}`).toBe(true)
  const flags = rest.filter((a) => a.startsWith('--'))
  const known = command === 'runner' ? RUNNER_FLAGS : command === 'scheduler' ? SCHEDULER_FLAGS : new Set<string>()
  for (const flag of flags) expect(known.has(flag), `${where}: ${command} ${flag}`).toBe(true)
}

const checkVariables = (names: Iterable<string>, where: string) => {
  for (const name of names) expect(KNOWN_VARIABLES.has(name), `${where}: variable ${name}`).toBe(true)
}
const checkProbe = (probe: string, where: string) => {
  expect(['/livez', '/readyz'], `${where}: probe ${probe}`).toContain(probe)
  expect(openapi.paths[probe]?.get, `${where}: ${probe} is a route`).toBeDefined()
}

describe('Dockerfile', () => {
  // Instructions with their continuation lines joined; comments dropped.
  const lines = read('Dockerfile').replace(/\\\n\s*/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))
  const stages = lines.reduce<string[][]>((all, line) => (line.startsWith('FROM ') ? [...all, [line]] : (all.at(-1)!.push(line), all)), [])
  const final = stages.at(-1)!
  const instruction = (stage: string[], name: string) => stage.filter((l) => l.startsWith(`${name} `)).map((l) => l.slice(name.length + 1))

  it('builds in one stage and runs in another, as an unprivileged user, on a Node the engines allow', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2)
    expect(stages[0][0]).toMatch(/ AS build$/)
    const users = instruction(final, 'USER')
    expect(users.length).toBe(1)
    expect(users[0]).not.toMatch(/^(root|0)(:|$)/)
    expect(final.findIndex((l) => l.startsWith('USER '))).toBeLessThan(final.findIndex((l) => l.startsWith('ENTRYPOINT ')))
    for (const stage of stages) {
      const major = Number(/node:(\d+)/.exec(stage[0])![1])
      expect(semver.satisfies(`${major}.99.0`, pkg.engines.node), stage[0]).toBe(true)
    }
    expect(read('.dockerignore').split('\n')).toEqual(expect.arrayContaining(['node_modules', '.git', 'data']))
  })

  it('runs npm scripts that exist and copies paths that exist (or that the build stage makes)', () => {
    for (const run of stages.flatMap((s) => instruction(s, 'RUN'))) {
      for (const m of run.matchAll(/npm run ([\w:-]+)/g)) expect(pkg.scripts[m[1]], run).toBeDefined()
      for (const m of run.matchAll(/node (bin\/[\w.]+) (\S+)/g)) {
        expect(exists(m[1]), run).toBe(true)
        expect(['--version', ...COMMANDS]).toContain(m[2])
      }
    }
    const made = new Set(['node_modules', 'web/dist'])
    for (const copy of stages.flatMap((s) => instruction(s, 'COPY'))) {
      const parts = copy.split(/\s+/).filter((p) => !p.startsWith('--'))
      for (const source of parts.slice(0, -1)) {
        const file = source.replace(/^\/app\//, '')
        if (source === '.' || made.has(file)) continue
        expect(exists(file), `COPY ${source}`).toBe(true)
      }
    }
  })

  it('names known variables, exposes the port it listens on, checks /readyz and starts a real command', () => {
    const env = Object.fromEntries(instruction(final, 'ENV').flatMap((e) => [...e.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1], m[2]])))
    checkVariables(Object.keys(env), 'Dockerfile ENV')
    expect(env.HOST).toBe('0.0.0.0')
    expect(instruction(final, 'EXPOSE')).toEqual([env.PORT])
    const healthcheck = instruction(final, 'HEALTHCHECK')[0]
    checkProbe(/(\/\w+z)\b/.exec(healthcheck)![1], 'HEALTHCHECK')
    const entrypoint = JSON.parse(instruction(final, 'ENTRYPOINT')[0])
    expect(entrypoint[0]).toBe('node')
    expect(exists(entrypoint[1])).toBe(true)
    checkCommand(JSON.parse(instruction(final, 'CMD')[0]), 'CMD')
  })
})

describe('compose.yaml and deploy/haproxy.cfg', () => {
  const compose = YAML.parse(read('compose.yaml'), { merge: true })
  const services = Object.entries<any>(compose.services)
  const ours = services.filter(([, s]) => s.build === '.')

  it('runs real commands with known variables; the API instances sit behind the proxy on their port', () => {
    expect(ours.map(([name]) => name)).toEqual(expect.arrayContaining(['api-1', 'api-2', 'scheduler', 'runner']))
    for (const [name, service] of ours) {
      checkCommand(service.command, `compose ${name}`)
      checkVariables(Object.keys(service.environment ?? {}), `compose ${name}`)
      for (const dependency of Array.isArray(service.depends_on) ? service.depends_on : Object.keys(service.depends_on ?? {})) {
        expect(compose.services[dependency], `${name} depends on ${dependency}`).toBeDefined()
      }
    }
    const apis = ours.filter(([, s]) => s.command[0] === 'serve').map(([name]) => name)
    expect(apis.length).toBeGreaterThanOrEqual(2)
    const haproxy = read('deploy/haproxy.cfg')
    const servers = [...haproxy.matchAll(/^\s*server (\S+) (\S+):(\d+)/gm)].map((m) => ({ name: m[2], port: m[3] }))
    expect(servers.map((s) => s.name).sort()).toEqual(apis.sort())
    const imagePort = /PORT=(\d+)/.exec(read('Dockerfile'))![1]
    for (const server of servers) expect(server.port).toBe(imagePort)
    checkProbe(/option httpchk GET (\S+)/.exec(haproxy)![1], 'haproxy')
    const published = compose.services.proxy.ports[0].split(':')
    expect(haproxy).toContain(`bind :${published[1]}`)
    for (const [name, service] of services) {
      for (const volume of service.volumes ?? []) {
        const host = String(volume).split(':')[0]
        if (host.startsWith('./')) expect(exists(host), `compose ${name} mounts ${host}`).toBe(true)
      }
    }
    const runner = compose.services.runner
    expect(runner.command[runner.command.indexOf('--url') + 1]).toBe(`http://proxy:${published[1]}`)
  })

  it('haproxy -c accepts the proxy configuration', () => {
    const check = spawnSync('/usr/sbin/haproxy', ['-c', '-f', path.join(ROOT, 'deploy/haproxy.cfg')], { encoding: 'utf8' })
    expect(check.stdout + check.stderr).toContain('Configuration file is valid')
    expect(check.status).toBe(0)
  })
})

describe('deploy/kubernetes/shopfloor.yaml', () => {
  const docs = YAML.parseAllDocuments(read('deploy/kubernetes/shopfloor.yaml')).map((d) => d.toJS())
  const of = (kind: string) => docs.filter((d) => d.kind === kind)

  it('runs real commands as non-root with known variables; the API probes /livez and /readyz on its port', () => {
    const deployments = of('Deployment')
    expect(deployments.map((d) => d.spec.template.spec.containers[0].args[0]).sort()).toEqual(['runner', 'scheduler', 'serve'])
    for (const kind of ['ConfigMap', 'Secret']) for (const d of of(kind)) checkVariables(Object.keys(d.data ?? d.stringData), `${kind} ${d.metadata.name}`)
    for (const d of deployments) {
      const where = `Deployment ${d.metadata.name}`
      expect(d.spec.selector.matchLabels).toEqual(d.spec.template.metadata.labels)
      expect(d.spec.template.spec.securityContext.runAsNonRoot).toBe(true)
      for (const c of d.spec.template.spec.containers) {
        checkCommand(c.args, where)
        checkVariables((c.env ?? []).map((e: any) => e.name), where)
        for (const source of c.envFrom ?? []) {
          const ref = source.configMapRef ?? source.secretRef
          expect(docs.find((x) => x.metadata.name === ref.name && x.kind === (source.configMapRef ? 'ConfigMap' : 'Secret')), `${where} ${ref.name}`).toBeDefined()
        }
        const port = (c.env ?? []).find((e: any) => e.name === 'PORT')?.value
        for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe'].map((p) => c[p]).filter(Boolean)) {
          checkProbe(probe.httpGet.path, where)
          const named = c.ports.find((p: any) => p.name === probe.httpGet.port)
          expect(String(named?.containerPort), `${where} probe port`).toBe(port)
        }
      }
    }
    const api = deployments.find((d) => d.spec.template.spec.containers[0].args[0] === 'serve')!
    const container = api.spec.template.spec.containers[0]
    expect(container.readinessProbe.httpGet.path).toBe('/readyz')
    expect(container.livenessProbe.httpGet.path).toBe('/livez')
    const service = of('Service')[0]
    expect(service.spec.selector).toEqual(api.spec.selector.matchLabels)
    expect(container.ports.map((p: any) => p.name)).toContain(service.spec.ports[0].targetPort)
    const runner = deployments.find((d) => d.spec.template.spec.containers[0].args[0] === 'runner')!
    const args = runner.spec.template.spec.containers[0].args
    expect(args[args.indexOf('--url') + 1]).toBe(`http://${service.metadata.name}`)
  })
})

describe('deploy/systemd', () => {
  const units = fs.readdirSync(path.join(ROOT, 'deploy/systemd')).filter((f) => f.endsWith('.service'))

  it('start real commands of the installed tree as an unprivileged user with known variables', () => {
    expect(units).toEqual(expect.arrayContaining(['shopfloor.service', 'shopfloor-runner.service']))
    for (const unit of units) {
      const lines = read(`deploy/systemd/${unit}`).split('\n').filter((l) => /^\w+=/.test(l))
      const values = (key: string) => lines.filter((l) => l.startsWith(`${key}=`)).map((l) => l.slice(key.length + 1))
      expect(values('User')[0], unit).not.toMatch(/^(root|0)$/)
      const [node, program, ...args] = values('ExecStart')[0].split(' ')
      expect(node).toBe('/usr/bin/node')
      expect(exists(program.replace('/opt/shopfloor/', '')), `${unit}: ${program}`).toBe(true)
      checkCommand(args, unit)
      checkVariables(values('Environment').map((e) => e.split('=')[0]), unit)
    }
  })

  it('systemd-analyze verify finds nothing to say', () => {
    for (const unit of units) {
      const check = spawnSync('systemd-analyze', ['verify', path.join(ROOT, 'deploy/systemd', unit)], { encoding: 'utf8' })
      expect(check.stdout + check.stderr, unit).toBe('')
      expect(check.status, unit).toBe(0)
    }
  })
})
