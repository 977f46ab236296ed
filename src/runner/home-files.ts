// Files the runner itself reads and writes in an agent's home (the CLIs' settings, skills, the
// sessions it keeps). A kept home (--agent-homes) is the agent's to change between runs, and an
// agent could leave a symbolic link there, say `.gemini -> ~runner/.config/shopfloor`: the runner,
// which sees more than the agent, would then write, read or delete its own files through it. So
// no path in a home is followed through a link: every folder on the way is checked to be a real
// folder (a link found there is removed, as the agent's own), and files are opened with
// O_NOFOLLOW.
import { closeSync, constants, lstatSync, mkdirSync, openSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { dirname, join, normalize, sep } from 'node:path'

/** The steps of a path relative to the home; refuses one that leaves it. */
function steps(relative: string): string[] {
  const parts = normalize(relative).split(sep).filter((p) => p && p !== '.')
  if (parts.includes('..') || relative.startsWith(sep)) throw new Error(`not a path inside the home: ${relative}`)
  return parts
}

function kind(path: string): 'dir' | 'link' | 'other' | null {
  try {
    const stat = lstatSync(path)
    return stat.isSymbolicLink() ? 'link' : stat.isDirectory() ? 'dir' : 'other'
  } catch (err: any) {
    if (err.code === 'ENOENT') return null
    throw err
  }
}

/**
 * Makes `relative` a real folder in the home, every step of it (created readable by its owner
 * only): a link, or a file, found on the way is removed first. Answers its absolute path.
 */
export function homeFolder(home: string, relative: string): string {
  let at = home
  for (const part of steps(relative)) {
    at = join(at, part)
    const found = kind(at)
    if (found === 'dir') continue
    if (found !== null) unlinkSync(at) // unlinks a link itself, never what it points to
    mkdirSync(at, { mode: 0o700 })
  }
  return at
}

/** Every folder of `relative` up to its last step is a real folder of the home (nothing is made). */
function realFolders(home: string, relative: string): boolean {
  let at = home
  for (const part of steps(relative).slice(0, -1)) {
    at = join(at, part)
    if (kind(at) !== 'dir') return false
  }
  return true
}

/** A file of the home, or null when it is absent or is a link (whatever it points to is not read). */
export function readHomeFile(home: string, relative: string): string | null {
  if (!realFolders(home, relative)) return null
  let fd: number
  try {
    fd = openSync(join(home, relative), constants.O_RDONLY | constants.O_NOFOLLOW)
  } catch (err: any) {
    if (err.code === 'ENOENT' || err.code === 'ELOOP') return null
    throw err
  }
  try {
    return readFileSync(fd, 'utf8')
  } finally {
    closeSync(fd)
  }
}

/** Writes a file of the home (its folders made real first); a link in its place is replaced, never followed. */
export function writeHomeFile(home: string, relative: string, content: string, mode = 0o600): void {
  const path = join(homeFolder(home, dirname(relative)), ...steps(relative).slice(-1))
  if (kind(path) === 'link') unlinkSync(path)
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, mode)
  try {
    writeFileSync(fd, content)
  } finally {
    closeSync(fd)
  }
}

/**
 * Removes a file or folder of the home, unless a folder on its way is no longer a real one (the
 * agent replaced it with a link meanwhile: what it points to is not the home's to remove).
 */
export function removeHomeEntry(home: string, relative: string): void {
  if (realFolders(home, relative)) rmSync(join(home, relative), { recursive: true, force: true })
}
