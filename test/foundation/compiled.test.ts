// The executable runs its sources compiled (bin/compiled.js): on a small TypeScript program of
// its own, the compiled program keeps each module's location, is reused while the sources are
// unchanged, is made again when one changes, survives several processes compiling at once, and
// is not attempted where the cache cannot be written.
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { compiledEntry } from '../../bin/compiled.js'
import { BIN, ROOT, tempDir } from '../server-process.ts'

const COMPILED = path.join(ROOT, 'bin', 'compiled.js')
const run = promisify(execFile)

/** A program of two TypeScript modules, the second printing where it is and what `word` says. */
function program(word: string): string {
  const root = tempDir('shopfloor-compiled-')
  fs.mkdirSync(path.join(root, 'src', 'lib'), { recursive: true })
  fs.writeFileSync(path.join(root, 'src', 'main.ts'), `import { say } from './lib/say.ts'\nexport function main(): void { say() }\n`)
  writeSay(root, word)
  return root
}

function writeSay(root: string, word: string) {
  const file = path.join(root, 'src', 'lib', 'say.ts')
  const before = fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0
  fs.writeFileSync(file, `const word: string = ${JSON.stringify(word)}\nexport function say(): void { console.log(JSON.stringify({ word, dir: import.meta.dirname, url: import.meta.url })) }\n`)
  // The program is known by each source's size and time, and the words have one length: an edit
  // within the same millisecond would keep the time, so each edit is made a second later than
  // the one before (a time taken at random could meet an earlier edit's and find its program).
  const later = new Date(Math.max(Date.now(), Math.floor(before) + 1000))
  fs.utimesSync(file, later, later)
}

/** Compiles (or reuses) in a new process and runs the compiled entry there. */
async function runCompiled(root: string, cache: string): Promise<{ word: string; dir: string; url: string; entry: string }> {
  const script = `const { compiledEntry } = await import(${JSON.stringify(COMPILED)})
const entry = await compiledEntry(${JSON.stringify(root)}, 'src/main.ts', ${JSON.stringify(cache)})
const { main } = await import(entry)
console.error(entry)
main()`
  const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT })
  return { ...JSON.parse(stdout), entry: stderr.trim() }
}

describe('the compiled program', () => {
  it('keeps each module where its source is, and is reused until a source changes', async () => {
    const root = program('first')
    const cache = path.join(tempDir(), 'cache')
    const one = await runCompiled(root, cache)
    expect(one.word).toBe('first')
    expect(one.dir).toBe(path.join(root, 'src', 'lib'))
    expect(one.url).toBe(`file://${path.join(root, 'src', 'lib', 'say.ts')}`)
    expect(one.entry.startsWith(cache)).toBe(true)

    const made = fs.statSync(one.entry).mtimeMs
    const again = await runCompiled(root, cache)
    expect(again.entry).toBe(one.entry)
    expect(fs.statSync(again.entry).mtimeMs).toBe(made) // not compiled a second time

    writeSay(root, 'second')
    const changed = await runCompiled(root, cache)
    expect(changed.word).toBe('second')
    expect(changed.entry).not.toBe(one.entry)
  })

  it('leaves no compiler process behind once the program is made', async () => {
    const root = program('alone')
    const cache = path.join(tempDir(), 'cache')
    // The running children of the process that compiled, once the program is made and up to 2 s
    // later (Linux /proc; a child stopped but not yet reaped is a zombie, state Z, and does not count).
    const script = `const { compiledEntry } = await import(${JSON.stringify(COMPILED)})
await compiledEntry(${JSON.stringify(root)}, 'src/main.ts', ${JSON.stringify(cache)})
const fs = await import('node:fs')
const state = (pid) => { try { return fs.readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ')[1].split(' ')[0] } catch { return 'gone' } }
const running = () => fs.readFileSync('/proc/self/task/' + process.pid + '/children', 'utf8').split(' ').filter(Boolean).filter((pid) => !['Z', 'gone'].includes(state(pid)))
// A stopped compiler takes a moment to exit; a compiler left running never does.
for (let i = 0; i < 40 && running().length > 0; i++) await new Promise((r) => setTimeout(r, 50))
console.log(JSON.stringify(running()))`
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT })
    expect(fs.readdirSync(cache).some((name) => /^[0-9a-f]{20}$/.test(name))).toBe(true) // it did compile
    expect(JSON.parse(stdout)).toEqual([])
  })

  it('is made again when the TypeScript settings change', async () => {
    const root = program('settings')
    const cache = path.join(tempDir(), 'cache')
    const before = await runCompiled(root, cache)
    fs.writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022' } }))
    const after = await runCompiled(root, cache)
    expect(after.word).toBe('settings')
    expect(after.entry).not.toBe(before.entry)
  })

  it('several processes starting at once on an empty cache all run, and one program is kept', async () => {
    const root = program('together')
    const cache = path.join(tempDir(), 'cache')
    const results = await Promise.all([1, 2, 3, 4].map(() => runCompiled(root, cache)))
    expect(results.map((r) => r.word)).toEqual(['together', 'together', 'together', 'together'])
    expect(new Set(results.map((r) => r.entry)).size).toBe(1)
    const folders = fs.readdirSync(cache).filter((f) => fs.statSync(path.join(cache, f)).isDirectory())
    expect(folders).toEqual([path.basename(path.dirname(results[0].entry))])
  })

  it('keeps only the newest programs as the sources change', async () => {
    const root = program('v0')
    const cache = path.join(tempDir(), 'cache')
    for (let i = 1; i <= 5; i++) {
      writeSay(root, `v${i}`)
      expect((await runCompiled(root, cache)).word).toBe(`v${i}`)
    }
    expect(fs.readdirSync(cache).filter((f) => f !== 'current.json')).toHaveLength(3)
  })

  it('answers null where the cache cannot be made, so the sources are loaded as they are', async () => {
    const root = program('unused')
    const notAFolder = path.join(tempDir(), 'file')
    fs.writeFileSync(notAFolder, '')
    expect(await compiledEntry(root, 'src/main.ts', path.join(notAFolder, 'cache'))).toBeNull()
  })

  it('the executable runs from the compiled program of its own sources', async () => {
    const { stdout } = await run(process.execPath, [BIN, '--help'], { cwd: ROOT })
    expect(stdout).toContain('shopfloor <command>')
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', '.cache', 'shopfloor', 'current.json'), 'utf8'))
    expect(manifest.entry).toBe('src/cli/main.ts')
    expect(manifest.files).toContain('src/api/app.ts')
    expect(fs.existsSync(path.join(ROOT, 'node_modules', '.cache', 'shopfloor', manifest.stamp, 'main.js'))).toBe(true)
  })
})
