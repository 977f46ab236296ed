// Blanks a variable's value in what /proc/<pid>/environ shows for this process. That file is
// read from the process's own memory (the block of "NAME=value" strings the kernel put on its
// stack at start), not from Node's process.env: deleting the variable changes nothing there, and
// Node cannot exec itself afresh. So the value's bytes are overwritten in place, through
// /proc/self/mem, where the kernel says the block lies (fields 50 and 51 of /proc/self/stat).
// Only on Linux; elsewhere there is no /proc to read it from.
import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs'

/**
 * Overwrites with NUL bytes the value of `name` in this process's start-up environment block.
 * Answers true when the value is gone from it (or was never there, or there is no /proc), false
 * when it could not be blanked. process.env no longer gives the value afterwards either.
 */
export function scrubEnviron(name: string): boolean {
  if (process.platform !== 'linux') return true
  let fd: number | undefined
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    // After "pid (comm) ", fields start at the third; env_start and env_end are the 50th and 51st.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const start = Number(fields[47])
    const end = Number(fields[48])
    if (!(start > 0 && end > start)) return false
    fd = openSync('/proc/self/mem', 'r+')
    const block = Buffer.alloc(end - start)
    readSync(fd, block, 0, block.length, start)
    const prefix = Buffer.from(`${name}=`)
    // Entry by entry: each "NAME=value" ends with a NUL byte.
    for (let at = 0; at < block.length;) {
      const next = block.indexOf(0, at) < 0 ? block.length : block.indexOf(0, at)
      if (next - at > prefix.length && block.subarray(at, at + prefix.length).equals(prefix)) {
        const from = at + prefix.length
        writeSync(fd, Buffer.alloc(next - from), 0, next - from, start + from)
      }
      at = next + 1
    }
    return readFileSync('/proc/self/environ', 'utf8').split('\0').every((entry) => !entry.startsWith(`${name}=`) || entry === `${name}=`)
  } catch {
    return false
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

