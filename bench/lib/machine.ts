import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'

export interface Machine {
  cpu: string
  cores: number
  memoryGiB: number
  kernel: string
  node: string
  postgres: string
  /** The commit measured, `+ changes` when the work tree differed from it. */
  revision: string
}

function revision(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim()
    return dirty ? `${head} + changes` : head
  } catch {
    return 'unknown (not a git work tree)'
  }
}

export function describeMachine(postgres: string): Machine {
  return {
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    postgres,
    revision: revision(),
  }
}

/** How busy the machine is besides us: 1-minute load average and other test runners alive. */
export function busyness(): { load1: number; testProcesses: number } {
  let testProcesses = 0
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('vitest')) testProcesses++
    } catch {
      // the process ended while we looked
    }
  }
  return { load1: Math.round(os.loadavg()[0] * 100) / 100, testProcesses }
}
