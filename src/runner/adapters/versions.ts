// Which releases of each agent CLI the adapters work with. Each adapter passes flags, writes
// settings and reads output of a certain release line; a CLI outside its range fails in ways
// that read like the agent's failure (an unknown flag, a refused folder, usage never read), so
// the runner refuses it at start and says which versions work (docs/runner.md has the table).

export interface VersionRange {
  /** Lowest version that works (tested: the real CLI in test/runner/real-clis.test.ts). */
  from: string
  /** First version not known to work (the next major release). */
  below: string
  /** How to install a working one. */
  install: string
}

export interface VersionCheck {
  /** The version number read from `--version`, or null when it has none. */
  version: string | null
  supported: boolean
  /** Why it is refused, for people; null when supported. */
  problem: string | null
}

/** The first `x.y.z` of a `--version` line ("2.1.197 (Claude Code)", "codex-cli 0.171.0"). */
export function versionNumber(line: string | null): string | null {
  return /(\d+)\.(\d+)\.(\d+)/.exec(line ?? '')?.[0] ?? null
}

/** Compares two `x.y.z` numbers: negative, zero or positive. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number)
  const pb = b.split('.').map(Number)
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pa[i] ?? 0) - (pb[i] ?? 0)
  return 0
}

export function checkVersion(product: string, line: string | null, range: VersionRange | undefined): VersionCheck {
  const version = versionNumber(line)
  if (!range) return { version, supported: true, problem: null }
  const works = `this runner works with ${product} ${range.from} or newer, below ${range.below} (${range.install})`
  if (!version) return { version, supported: false, problem: `${product} answered --version with no version number ("${line ?? ''}"): ${works}` }
  if (compareVersions(version, range.from) >= 0 && compareVersions(version, range.below) < 0) return { version, supported: true, problem: null }
  return { version, supported: false, problem: `${product} ${version} is not supported: ${works}` }
}
