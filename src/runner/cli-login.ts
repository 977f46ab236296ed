// --share-cli-login: agents use the runner user's own CLI logins (a Claude Max or ChatGPT plan,
// a Gemini or OpenCode login), so subscriptions work without API keys (API-DECISIONS.md
// "Provider limits, plans and fallback"). Only each CLI's credential files are shared, and only
// for reading: in the sandbox each is bound read-only over the same path in the run's home, the
// rest of the runner's home staying out of sight. Without a sandbox (--no-sandbox) the agent
// runs as the runner's user anyway; the files are linked into the run's home.
//
// Read-only means a CLI cannot refresh an expired token inside a run (nor spoil the runner's,
// as a copy using a rotating refresh token would): the runner's user keeps the login fresh by
// using the CLI now and then.
import { existsSync, lstatSync, readFileSync, symlinkSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { homeFolder, readHomeFile, writeHomeFile } from './home-files.ts'

/** Each CLI's login, relative to a home: the files shared read-only, and settings to copy (least of them). */
export const CLI_LOGINS: Record<string, { files: string[]; settings?: { file: string; keys: string[] } }> = {
  // Claude Code: the OAuth tokens; ~/.claude.json is its state (projects, MCP servers with their
  // own secrets) of which only the account and onboarding say it is logged in.
  agent_cli_1: { files: ['.claude/.credentials.json'], settings: { file: '.claude.json', keys: ['oauthAccount', 'hasCompletedOnboarding'] } },
  agent_cli_2: { files: ['.codex/auth.json'] },
  agent_cli_3: { files: ['.gemini/oauth_creds.json', '.gemini/google_accounts.json'] },
  // $XDG_DATA_HOME/opencode/auth.json, the run's XDG_DATA_HOME being unset: ~/.local/share.
  agent_cli_4: { files: ['.local/share/opencode/auth.json'] },
}

/** A login file bound read-only into the sandbox: the runner's file and where the agent sees it. */
export interface SharedFile {
  source: string
  target: string
}

/**
 * Makes the runner's login for `adapter` usable in the run's home `home`: answers the files to
 * bind read-only in the sandbox (empty without one: they are linked), or null when the runner's
 * user has no login for that CLI.
 */
export function shareLogin(adapter: string, runnerHome: string, home: string, sandboxed: boolean): SharedFile[] | null {
  const login = CLI_LOGINS[adapter]
  if (!login) return null
  const present = login.files.filter((file) => existsSync(join(runnerHome, file)))
  if (!present.length) return null
  const shared: SharedFile[] = []
  for (const file of present) {
    const source = join(runnerHome, file)
    const target = join(homeFolder(home, dirname(file)), file.split('/').pop()!)
    if (lstatOrNull(target)) continue // a kept home's earlier run made it already
    if (sandboxed) {
      // bwrap binds over an existing file; left empty, the real one is never written here.
      writeHomeFile(home, file, '')
      shared.push({ source, target })
    } else {
      symlinkSync(source, target)
    }
  }
  // A kept home's file from an earlier run is bound again.
  for (const file of present) {
    const target = join(home, file)
    if (sandboxed && !shared.some((s) => s.target === target)) shared.push({ source: join(runnerHome, file), target })
  }
  if (login.settings) copySettings(join(runnerHome, login.settings.file), home, login.settings.file, login.settings.keys)
  return shared
}

function lstatOrNull(path: string) {
  try {
    return lstatSync(path)
  } catch {
    return null
  }
}

/** Copies `keys` of a JSON settings file into the run's own copy (merged with what is there; never through a link: home-files.ts). */
function copySettings(source: string, home: string, target: string, keys: string[]): void {
  if (!existsSync(source)) return
  let from: Record<string, unknown>
  try {
    from = JSON.parse(readFileSync(source, 'utf8'))
  } catch {
    return
  }
  let to: Record<string, unknown> = {}
  try {
    to = JSON.parse(readHomeFile(home, target) ?? '{}')
  } catch {
    // an unreadable copy is replaced
  }
  for (const key of keys) if (key in from) to[key] = from[key]
  writeHomeFile(home, target, `${JSON.stringify(to, null, 2)}\n`)
}
