// `npm test`: the type check and the test files at once. The check (tsc, one core, 6 s on an
// unchanged tree and about 20 s on a new checkout) used to run before the first test; alongside,
// it fills what the test run leaves idle while its global set-up prepares the databases. Its
// output is printed when it ends; the command fails when either part fails. Arguments go to vitest.
import { spawn } from 'node:child_process'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')
const bin = (name) => path.join(root, 'node_modules', '.bin', name)

function run(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, ...options })
    let output = ''
    child.stdout?.on('data', (d) => (output += d))
    child.stderr?.on('data', (d) => (output += d))
    child.on('exit', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }))
  })
}

// The check is package.json's `typecheck` script, so it is defined in one place.
const typecheck = run('npm', ['run', '--silent', 'typecheck'], { stdio: ['ignore', 'pipe', 'pipe'] }).then((result) => {
  process.stdout.write(result.code === 0 ? 'Type check passed.\n' : `Type check failed:\n${result.output}\n`)
  return result.code
})
const tests = run(bin('vitest'), ['run', ...process.argv.slice(2)], { stdio: 'inherit' }).then((result) => result.code)

const [checked, tested] = await Promise.all([typecheck, tests])
process.exit(checked || tested)
