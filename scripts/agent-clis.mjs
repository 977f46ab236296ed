// The real agent CLIs for the tests (test/runner/real-*.test.ts): the pinned npm packages,
// installed once into node_modules/.cache/agent-clis, with a bin/ folder of their executables.
// Installed without install scripts (npm's are blocked here, and none is needed): Claude Code and
// OpenCode ship their programs as per-platform packages, whose executable bin/ points at
// directly; the package's own `bin` is a placeholder its install script would replace.
//
//   node scripts/agent-clis.mjs          installs what is missing, prints the bin folder
//   import { agentClis } from ...        the same, from the tests' global set-up
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

export const AGENT_CLI_PACKAGES = {
  '@anthropic-ai/claude-code': '2.1.197',
  '@openai/codex': '0.171.0',
  '@google/gemini-cli': '0.61.0',
  'opencode-ai': '1.18.33',
}

const ROOT = path.resolve(import.meta.dirname, '..')
export const AGENT_CLIS_DIR = path.join(ROOT, 'node_modules', '.cache', 'agent-clis')

const platform = `${process.platform}-${process.arch}`

/** Executable name -> its path inside the cache's node_modules. */
function executables() {
  return {
    claude: `@anthropic-ai/claude-code-${platform}/claude`,
    codex: '@openai/codex/bin/codex.js',
    gemini: '@google/gemini-cli/bundle/gemini.js',
    opencode: `opencode-${platform.replace('win32', 'windows')}/bin/opencode`,
  }
}

function installedVersion(name) {
  try {
    return JSON.parse(fs.readFileSync(path.join(AGENT_CLIS_DIR, 'node_modules', name, 'package.json'), 'utf8')).version
  } catch {
    return null
  }
}

/** Installs the pinned packages unless they are there already; answers the bin folder. */
export function agentClis({ quiet = false } = {}) {
  const wanted = Object.entries(AGENT_CLI_PACKAGES)
  const missing = wanted.filter(([name, version]) => installedVersion(name) !== version)
  if (missing.length) {
    fs.mkdirSync(AGENT_CLIS_DIR, { recursive: true })
    fs.writeFileSync(path.join(AGENT_CLIS_DIR, 'package.json'), `${JSON.stringify({ private: true, description: 'agent CLIs for the tests' })}\n`)
    if (!quiet) process.stderr.write(`Installing the agent CLIs for the tests: ${missing.map(([n, v]) => `${n}@${v}`).join(' ')}\n`)
    execFileSync('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--no-save', '--prefix', AGENT_CLIS_DIR,
      ...wanted.map(([name, version]) => `${name}@${version}`)], { stdio: quiet ? 'ignore' : ['ignore', 2, 2] })
  }
  const bin = path.join(AGENT_CLIS_DIR, 'bin')
  fs.mkdirSync(bin, { recursive: true })
  for (const [name, target] of Object.entries(executables())) {
    const file = path.join(AGENT_CLIS_DIR, 'node_modules', target)
    if (!fs.existsSync(file)) throw new Error(`${name}: ${file} is missing after the install (no package for ${platform}?)`)
    const link = path.join(bin, name)
    fs.rmSync(link, { force: true })
    fs.symlinkSync(file, link)
  }
  return bin
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${agentClis()}\n`)
}
