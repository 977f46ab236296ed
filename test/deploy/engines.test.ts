// package.json's `engines` says the truth: every installed package accepts the oldest Node.js the
// range allows (npm ci warns EBADENGINE otherwise), and the range takes the Node.js that runs
// this test, so a machine that installs the project can run it.
import fs from 'node:fs'
import path from 'node:path'
import semver from 'semver'
import { expect, it } from 'vitest'
import { ROOT } from '../server-process.ts'

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'))

it("the oldest Node.js of engines satisfies every installed package's engines", () => {
  const oldest = semver.minVersion(pkg.engines.node)!.version
  const refusing = Object.entries<any>(lock.packages)
    .filter(([name, meta]) => name && typeof meta.engines?.node === 'string' && semver.validRange(meta.engines.node))
    .filter(([, meta]) => !semver.satisfies(oldest, meta.engines.node))
    .map(([name, meta]) => `${name.replace(/^.*node_modules\//, '')} needs ${meta.engines.node}`)
  expect(refusing).toEqual([])
  expect(lock.packages[''].engines).toEqual(pkg.engines)
})
