// `shopfloor runner doctor` as a person runs it (the real command, CLIs that print their
// `--version`, the real MCP server), and the supported version ranges it and the runner apply.
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkVersion } from '../../src/runner/adapters/versions.ts'
import { BIN, tempDir } from '../server-process.ts'

const CODEX = { from: '0.169.0', below: '1.0.0', install: 'npm install -g @openai/codex@latest' }

describe('supported versions', () => {
  it('takes a version in the range, refuses one below or above it saying which work, and runs one that did not tell its version', () => {
    expect(checkVersion('Codex', 'codex-cli 0.171.0', CODEX)).toEqual({ version: '0.171.0', supported: true, problem: null })
    expect(checkVersion('Codex', 'codex-cli 0.169.0', CODEX).supported).toBe(true)
    expect(checkVersion('Codex', 'codex-cli 0.140.0', CODEX)).toEqual({
      version: '0.140.0', supported: false,
      problem: 'Codex 0.140.0 is not supported: this runner works with Codex 0.169.0 or newer, below 1.0.0 (npm install -g @openai/codex@latest)',
    })
    expect(checkVersion('Codex', 'codex-cli 1.0.0', CODEX).supported).toBe(false)
    expect(checkVersion('Codex', 'codex-cli 0.1000.0', CODEX).supported).toBe(true) // numbers, not text, compared
    expect(checkVersion('Codex', 'a banner', CODEX)).toMatchObject({ supported: false, problem: expect.stringContaining('answered --version with no version number ("a banner")') })
    expect(checkVersion('Codex', null, CODEX)).toMatchObject({ supported: true, problem: expect.stringContaining('did not tell its version') })
    expect(checkVersion('Cursor Agent', '2025.10.28-0a91dc2', undefined).supported).toBe(true) // no range known
  })
})

/** Executables that print a `--version` line, in a folder of their own. */
function fakeClis(versions: Record<string, string>): string {
  const bin = path.join(tempDir('shopfloor-doctor-'), 'bin')
  fs.mkdirSync(bin)
  for (const [name, line] of Object.entries(versions)) {
    fs.writeFileSync(path.join(bin, name), `#!/bin/sh\necho '${line}'\n`)
    fs.chmodSync(path.join(bin, name), 0o755)
  }
  return bin
}

function doctor(env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, 'runner', 'doctor', ...args], { env, timeout: 60_000 }, (err: any, stdout) => resolve({ code: err ? err.code ?? null : 0, stdout }))
  })
}

describe('shopfloor runner doctor', () => {
  it('lists each CLI with its version and support, the credential it would use, the sandbox, and passes the MCP self-check', async () => {
    const bin = fakeClis({ claude: '2.1.197 (Claude Code)', codex: 'codex-cli 0.140.0', gemini: '0.61.0' })
    const { code, stdout } = await doctor({ PATH: `${bin}:/usr/bin:/bin`, HOME: tempDir('shopfloor-doctor-home-'), ANTHROPIC_API_KEY: 'sk-ant-test' })
    expect(stdout).toContain(`Claude Code (agent_cli_1): 2.1.197 (Claude Code) at ${bin}/claude: supported (2.1.0 or newer, below 3.0.0); credential: ANTHROPIC_API_KEY (from this environment)`)
    expect(stdout).toContain(`Codex (agent_cli_2): codex-cli 0.140.0 at ${bin}/codex: NOT SUPPORTED: Codex 0.140.0 is not supported: this runner works with Codex 0.169.0 or newer, below 1.0.0`)
    expect(stdout).toContain('Gemini CLI (agent_cli_3): 0.61.0')
    expect(stdout).toContain('credential: none: set GEMINI_API_KEY or GOOGLE_API_KEY or GOOGLE_APPLICATION_CREDENTIALS, or log the CLI in as this user and start the runner with --share-cli-login, or use --agent-homes')
    expect(stdout).toContain('OpenCode (agent_cli_4): not found (looked for opencode on PATH)')
    expect(stdout).toMatch(/Sandbox: (bubblewrap at \/usr\/bin\/bwrap|bubblewrap \(bwrap\) not found)/)
    expect(stdout).toMatch(/MCP self-check: passed: .* offered \d+ tools \(get_context, .*create_task.*add_comment.*\) in [\d.]+ s/)
    expect(stdout).toContain('This runner can run 2 agent CLIs.')
    expect(code).toBe(0)
  }, 90_000)

  it('exits 1 when it can run no agent CLI, and names a login in the agent homes as the credential', async () => {
    const bin = fakeClis({ codex: 'codex-cli 0.140.0' })
    const homes = tempDir('shopfloor-doctor-homes-')
    const { code, stdout } = await doctor({ PATH: `${bin}:/usr/bin:/bin`, HOME: homes }, ['--agent-homes', homes])
    expect(stdout).toContain('This runner can run no agent CLI')
    expect(code).toBe(1)
    const ok = await doctor({ PATH: `${fakeClis({ codex: 'codex-cli 0.171.0' })}:/usr/bin:/bin`, HOME: homes }, ['--agent-homes', homes])
    expect(ok.stdout).toContain(`credential: a login of the CLI in each agent's home under ${homes}`)
  }, 90_000)
})
