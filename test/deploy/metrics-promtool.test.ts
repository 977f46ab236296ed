// GET /metrics of a new server process, checked with Prometheus's own tool (promtool, Debian's
// `prometheus` package): the text passes `promtool check metrics`, it names the build, and the
// documented alerts (docs/operations.md) fire on what such a process exposes
// (`promtool test rules`): a labelled counter with no series until its first increment would
// leave `rate(x{outcome="delivered"}[15m]) == 0` without an answer, and its alert silent.
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import YAML from 'yaml'
import { SERVICE_VERSION } from '../../src/contract/version.ts'
import { ROOT, tempDir } from '../server-process.ts'
import { startTestServer, type TestServer } from '../runner/harness.ts'

const PROMTOOL = '/usr/bin/promtool'

let server: TestServer
let text: string
beforeAll(async () => {
  if (!fs.existsSync(PROMTOOL)) throw new Error('promtool is missing: apt-get install prometheus (CI installs it)')
  server = await startTestServer()
  text = await (await fetch(`${server.url}/metrics`)).text()
})
afterAll(async () => {
  await server?.close()
})

/** The series lines of one metric: `name{labels} value`. */
const seriesOf = (name: string) => text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))

it('passes promtool check metrics: no gauge named *_total', () => {
  const check = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' })
  expect(check.stdout + check.stderr).toBe('')
  expect(check.status).toBe(0)
  expect(text).not.toMatch(/^shopfloor_nodejs_active_\w+_total/m)
  expect(text).toMatch(/^shopfloor_nodejs_active_handles\{/m)
})

it('names the build in shopfloor_build_info', () => {
  expect(seriesOf('shopfloor_build_info')).toEqual([`shopfloor_build_info{version="${SERVICE_VERSION}",node_version="${process.version}"} 1`])
})

it('starts every labelled counter at 0 for each label value it knows', () => {
  const zero = (name: string, labels: string) => expect(seriesOf(name)).toContain(`${name}{${labels}} 0`)
  for (const outcome of ['delivered', 'retry', 'failed']) zero('shopfloor_webhook_deliveries_total', `outcome="${outcome}"`)
  for (const result of ['claimed', 'empty']) zero('shopfloor_run_claims_total', `result="${result}"`)
  for (const [kind, result] of [['routine', 'fired'], ['routine', 'skipped'], ['heartbeat', 'fired'], ['heartbeat', 'skipped'], ['heartbeat', 'idle']]) {
    zero('shopfloor_scheduler_slots_total', `kind="${kind}",result="${result}"`)
  }
  for (const action of ['analyze', 'vacuum']) zero('shopfloor_embedded_upkeep_total', `action="${action}"`)
})

it('fires the documented ShopfloorWebhooksFailing alert in a process that has delivered nothing (promtool test rules)', () => {
  // The alerting rules exactly as docs/operations.md gives them.
  const docs = fs.readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8')
  const block = [...docs.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.startsWith('groups:'))
  expect(block).toBeDefined()
  const rule = YAML.parse(block!).groups[0].rules.find((r: any) => r.alert === 'ShopfloorWebhooksFailing')
  const dir = tempDir()
  fs.writeFileSync(path.join(dir, 'rules.yml'), block!)
  // Input: the webhook series this process exposes, as scraped, then attempts that keep failing.
  const input = seriesOf('shopfloor_webhook_deliveries_total').map((line) => {
    const series = line.slice(0, line.lastIndexOf(' ')).replace('{', '{job="shopfloor",instance="api-1",')
    return { series, values: series.includes('outcome="retry"') ? '0+2x90' : `${line.slice(line.lastIndexOf(' ') + 1)}x90` }
  })
  expect(input.length).toBeGreaterThan(0)
  const tests = {
    rule_files: ['rules.yml'],
    evaluation_interval: '1m',
    tests: [{
      interval: '1m',
      input_series: input,
      alert_rule_test: [
        { eval_time: '20m', alertname: 'ShopfloorWebhooksFailing', exp_alerts: [] }, // pending: `for: 30m`
        { eval_time: '60m', alertname: 'ShopfloorWebhooksFailing', exp_alerts: [{ exp_labels: {}, exp_annotations: rule.annotations }] },
      ],
    }],
  }
  fs.writeFileSync(path.join(dir, 'tests.yml'), YAML.stringify(tests))
  const result = spawnSync(PROMTOOL, ['test', 'rules', 'tests.yml'], { cwd: dir, encoding: 'utf8' })
  expect(result.stdout + result.stderr).toContain('SUCCESS')
  expect(result.status).toBe(0)
  expect(execFileSync(PROMTOOL, ['check', 'rules', 'rules.yml'], { cwd: dir, encoding: 'utf8' })).toContain('SUCCESS')
})
