// Agents run confined. Every real agent process (an agent CLI, a `process` command, the MCP
// server a CLI starts and whatever they spawn) is started inside a bubblewrap sandbox: its own
// user, PID, IPC, UTS and cgroup namespaces and its own /proc (no runner, no other run to see or
// signal), every capability dropped, a read-only view of the system, and writable only the run's
// working folder (with its repository's git data) and the agent's home. The runner's home,
// configuration, key file, cache and the other agents' homes are not there at all. The network
// stays (agents call their model and the Shopfloor API) unless the operator cuts it.
//
// The view is an allow-list: a fresh root holding the system folders, Shopfloor's own code (the
// MCP server runs from it), Node, the agent's executable and what the operator adds. Anything not
// named is absent, so a secret kept somewhere new is hidden without anyone thinking of it.
import { execFile } from 'node:child_process'
import { existsSync, lstatSync, readFileSync, readlinkSync, realpathSync } from 'node:fs'
import { constants, homedir, tmpdir } from 'node:os'
import { dirname, join, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { findExecutable } from './adapters/detect.ts'

/** The settings a sandbox is made from (the runner's options). */
export interface SandboxSettings {
  /** --no-sandbox: agents run as the runner's user, seeing what it sees. */
  noSandbox: boolean
  /** The bubblewrap executable (--bwrap; `bwrap` on PATH). */
  bwrap: string
  /** --agent-network: on (default) or off. */
  agentNetwork: boolean
  /** Where agents run without a project repository: writable for them. */
  workDir: string
  /** --agent-read, --agent-write: more folders the operator shows every agent. */
  agentRead: string[]
  agentWrite: string[]
  /** Folders and files that must stay out of sight even inside a visible folder. */
  cacheDir: string
  agentHomes: string | null
  /** Shopfloor's configuration folder, and the runner's config and key files when it has them. */
  configDir: string
  configFile: string | null
  apiKeyFile: string | null
}

export interface Sandbox {
  bwrap: string
  /** `nice`, which starts the sandbox at AGENT_NICENESS; null where the system has none. */
  nice: string | null
  network: boolean
  /** Visible read-only besides the system: Shopfloor's own code, Node, --agent-read. */
  readOnly: string[]
  /** Writable for every agent besides its own folder and home: --agent-write. */
  writable: string[]
  /** Folders never visible, even inside a visible one. */
  hiddenDirs: string[]
  /** Files never visible, even inside a visible folder. */
  hiddenFiles: string[]
}

/** What an agent process is started for: its sandbox (null: none), working folder, home and environment. */
export interface SandboxTarget {
  sandbox: Sandbox | null
  cwd: string
  home: string
  env: Record<string, string>
  /** Files bound read-only over a path in the home (--share-cli-login: the runner's CLI logins, cli-login.ts). */
  sharedFiles?: { source: string; target: string }[]
}

/** The system, read-only: programs, libraries and settings (the resolver's too, for the network). */
const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt', '/run/systemd/resolve', '/run/resolvconf']

/**
 * The niceness agents run at, below the runner's: an agent that keeps every core busy (or the
 * CLIs of several runs starting at once) cannot starve the runner, which must read each usage
 * update and stop a run at its spend limit before the CLI's next model answer arrives. Inside
 * the sandbox every capability is dropped, so no agent can raise its priority back.
 */
export const AGENT_NICENESS = 10

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)))
/** Shopfloor's own code (the MCP server runs from it), not the rest of its folder. */
const OWN_CODE = ['bin', 'src', 'node_modules', 'package.json', 'tsconfig.json'].map((name) => join(ROOT, name))

/** The adapters whose agents are processes on this machine (the others need no sandbox). */
export function runsLocally(adapter: string): boolean {
  return adapter === 'process' || adapter.startsWith('agent_cli_')
}

/**
 * The command line that starts `command` with `args` for the target: the bwrap command line
 * around it in the target's sandbox, or the command as it is without one. Every spawn of an
 * agent process goes through here.
 */
export function sandboxed(target: SandboxTarget, command: string, args: string[]): [string, string[]] {
  const { sandbox } = target
  if (!sandbox) return [command, args]
  const bwrap = [...bwrapArgs(sandbox, target, command), '--', command, ...args]
  return sandbox.nice ? [sandbox.nice, ['-n', String(AGENT_NICENESS), sandbox.bwrap, ...bwrap]] : [sandbox.bwrap, bwrap]
}

/**
 * How the agent ended, as seen through its sandbox. bwrap runs the agent as a child of its own
 * and exits with the agent's exit code, or with 128 + the signal's number when a signal killed
 * it (as a shell does): an agent killed by SIGKILL inside ends bwrap with code 137. Read back as
 * the signal, so that a killed agent is reported as killed whether it ran confined or not.
 */
export function exitThroughSandbox<T extends { code: number | null; signal: NodeJS.Signals | null }>(exit: T, sandbox: Sandbox | null): T {
  if (!sandbox || exit.code === null || exit.code <= 128) return exit
  const signal = (Object.keys(constants.signals) as NodeJS.Signals[]).find((name) => constants.signals[name] === exit.code! - 128)
  return signal ? { ...exit, code: null, signal } : exit
}

type Mount = { kind: 'ro' | 'rw' | 'hide-dir' | 'hide-file' | 'tmpfs' | 'empty'; path: string }

function bwrapArgs(sandbox: Sandbox, target: SandboxTarget, command: string): string[] {
  const args = [
    '--unshare-all', ...(sandbox.network ? ['--share-net'] : []),
    // Running as root, bwrap would keep root's capabilities inside; nobody inside needs any.
    '--cap-drop', 'ALL',
    '--proc', '/proc', '--dev', '/dev',
  ]
  // No --new-session: the runner starts the agent as the leader of a session and process group
  // of its own, without a terminal, and stops it by signalling that group (adapters/child.ts).
  for (const path of SYSTEM) {
    const link = symlinkAt(path)
    if (link !== null) args.push('--symlink', link, path)
    else if (existsSync(path)) args.push('--ro-bind', path, path)
  }
  const git = worktreeData(target.cwd)
  const visible: Mount[] = [
    { kind: 'tmpfs' as const, path: '/tmp' },
    { kind: 'tmpfs' as const, path: '/var/tmp' },
    ...[...OWN_CODE, ...sandbox.readOnly, ...nodeInstall(), ...executableInstall(command, target.env.PATH)].map((path) => ({ kind: 'ro' as const, path })),
    ...[...sandbox.writable, target.cwd, ...(git ? [git.common] : []), target.home].map((path) => ({ kind: 'rw' as const, path })),
    ...gitControls(git, target.cwd),
  ].filter((m) => m.kind === 'tmpfs' || m.kind === 'empty' || existsSync(m.path))
  const underVisible = (path: string) => visible.some((m) => (m.kind === 'ro' || m.kind === 'rw') && inside(path, m.path))
  const hidden: Mount[] = [
    ...sandbox.hiddenDirs.filter(underVisible).map((path) => ({ kind: 'hide-dir' as const, path })),
    ...sandbox.hiddenFiles.filter(underVisible).map((path) => ({ kind: 'hide-file' as const, path })),
  ]
  // Parents before children: a folder mounted later lies over what an earlier mount showed there
  // (the run's worktree inside the hidden cache, its home inside the hidden homes folder).
  const mounts = [...visible, ...hidden].sort((a, b) => depth(a.path) - depth(b.path))
  for (const { kind, path } of mounts) {
    if (kind === 'tmpfs' || kind === 'hide-dir') args.push('--tmpfs', path)
    else if (kind === 'empty') args.push('--tmpfs', path, '--remount-ro', path)
    else if (kind === 'hide-file') args.push('--ro-bind', '/dev/null', path)
    else args.push(kind === 'ro' ? '--ro-bind' : '--bind', path, path)
  }
  // After the home: each lies over its empty stand-in there.
  for (const { source, target: at } of target.sharedFiles ?? []) args.push('--ro-bind', source, at)
  if (target.env.TMPDIR !== undefined) args.push('--setenv', 'TMPDIR', '/tmp')
  args.push('--chdir', target.cwd)
  return args
}

/** Where a symbolic link at `path` points (merged /usr: /bin -> usr/bin), or null when it is none. */
function symlinkAt(path: string): string | null {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : null
  } catch {
    return null
  }
}

function inside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep)
}

function depth(path: string): number {
  return path.split(sep).filter(Boolean).length
}

const inSystem = (path: string) => SYSTEM.some((folder) => inside(path, folder))

/** Node's installation, when it is not part of the system (nvm, a tarball in the user's home). */
function nodeInstall(): string[] {
  const node = realpathSync(process.execPath)
  return inSystem(node) ? [] : [dirname(dirname(node))]
}

/**
 * What the agent's executable needs to be run: the folder it is found in, and where it really
 * lives (the `node_modules` folder of an npm-installed CLI, whose launcher loads its platform's
 * binary from a package beside it), unless that is part of the system.
 */
function executableInstall(command: string, path: string | undefined): string[] {
  const found = command.includes('/') ? resolve(command) : findExecutable(command, path)
  if (!found) return [] // bwrap then says it cannot find it
  let real: string
  try {
    real = realpathSync(found)
  } catch {
    return []
  }
  const folders = [dirname(found), packageFolder(real)]
  return [...new Set(folders.filter((folder) => !inSystem(folder)))]
}

function packageFolder(file: string): string {
  const parts = file.split(sep)
  const at = parts.lastIndexOf('node_modules')
  return at > 0 ? parts.slice(0, at + 1).join(sep) : dirname(file)
}

/** A git worktree's data: its own folder in the clone (`gitDir`) and the clone's `.git` (`common`). */
interface GitData {
  gitDir: string
  common: string
}

/**
 * Where a git worktree's commits are written: its `.git` is a file naming the worktree's folder
 * in the clone, whose `commondir` names the clone's own `.git`. Null when `cwd` is no worktree.
 * A project's run has a repository of its own (workspace.ts resets its controls before the
 * runner's git calls); an agent's folder can still be a worktree through --workdir.
 */
function worktreeData(cwd: string): GitData | null {
  try {
    const dotGit = join(cwd, '.git')
    if (!lstatSync(dotGit).isFile()) return null
    const match = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))
    if (!match) return null
    const gitDir = resolve(cwd, match[1].trim())
    const commonFile = join(gitDir, 'commondir')
    const common = existsSync(commonFile) ? resolve(gitDir, readFileSync(commonFile, 'utf8').trim()) : gitDir
    return { gitDir, common }
  } catch {
    return null
  }
}

/**
 * What in a worktree's git data decides which commands git runs: the clone's settings
 * (core.fsmonitor, filters, core.hooksPath...) and hooks, and the files that say where the
 * worktree's data is (its `.git`, its `commondir`). The runner runs git in the worktree and the
 * clone outside the sandbox, so the agent may write commits and refs but none of these: they are
 * read-only, and being mount points they cannot be replaced either. Hooks are an empty
 * read-only folder: the clone's are the runner's business.
 */
function gitControls(data: GitData | null, cwd: string): Mount[] {
  if (!data) return []
  return [
    ...[join(cwd, '.git'), join(data.gitDir, 'commondir'), join(data.common, 'config')].map((path) => ({ kind: 'ro' as const, path })),
    { kind: 'empty', path: join(data.common, 'hooks') },
  ]
}

/** The sandbox the runner's settings ask for; `problem` says why agents cannot run in one. */
export interface Confinement {
  sandbox: Sandbox | null
  /** Set when agents should run confined but cannot: real agents are then refused. */
  problem: string | null
  /** How long a sandbox took to start and end at the check (milliseconds). */
  checkMs: number | null
  /** Folders shown to agents that hold the runner's home: all of it is theirs to read (or write). */
  exposesHome: string[]
}

/**
 * Makes the sandbox and checks that bubblewrap works here (installed, and allowed to make user
 * namespaces) by starting `true` in one.
 */
export async function prepareSandbox(settings: SandboxSettings): Promise<Confinement> {
  if (settings.noSandbox) return { sandbox: null, problem: null, checkMs: null, exposesHome: [] }
  const bwrap = findExecutable(settings.bwrap)
  if (!bwrap) {
    return { sandbox: null, problem: `bubblewrap (${settings.bwrap}) is not installed (Debian and Ubuntu: apt-get install bubblewrap)`, checkMs: null, exposesHome: [] }
  }
  const absolute = (paths: string[]) => paths.map((p) => resolve(p))
  const sandbox: Sandbox = {
    bwrap,
    nice: findExecutable('nice'),
    network: settings.agentNetwork,
    readOnly: absolute(settings.agentRead),
    writable: absolute(settings.agentWrite),
    hiddenDirs: absolute([settings.cacheDir, settings.configDir, ...(settings.agentHomes ? [settings.agentHomes] : [])]),
    hiddenFiles: absolute([settings.configFile, settings.apiKeyFile].filter((file): file is string => file !== null)),
  }
  const started = performance.now()
  const failure = await new Promise<string | null>((done) => {
    const probe = tmpdir()
    const [command, args] = sandboxed({ sandbox, cwd: probe, home: probe, env: {} }, 'true', [])
    execFile(command, args, { timeout: 15_000 }, (err, _stdout, stderr) => done(err ? `${String(stderr).trim() || err.message}` : null))
  })
  if (failure) return { sandbox: null, problem: `bubblewrap cannot make a sandbox here: ${failure}`, checkMs: null, exposesHome: [] }
  // The work folder defaults to where the runner was started, often its user's home.
  const home = resolve(process.env.HOME || homedir())
  const exposesHome = [...new Set([resolve(settings.workDir), ...sandbox.readOnly, ...sandbox.writable])].filter((folder) => inside(home, folder))
  return { sandbox, problem: null, checkMs: Math.round(performance.now() - started), exposesHome }
}

/** What the run's first transcript line says of the confinement of a local agent ('' for the others). */
export function confinementNote(sandbox: Sandbox | null, adapter: string): string {
  if (!runsLocally(adapter)) return ''
  if (!sandbox) return ' Without a sandbox (--no-sandbox): the agent can read and change whatever the runner\'s user can.'
  return ` In a bubblewrap sandbox: it sees the system read-only and writes only its working folder and home; network ${sandbox.network ? 'on' : 'off'}` +
    `${sandbox.nice ? `; at niceness ${AGENT_NICENESS}, below the runner` : ''}.`
}
