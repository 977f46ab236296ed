// What a person meets first on the command line: --version, help for every command (serve
// --help prints help rather than starting a server), destructive commands that ask on a
// terminal or take --yes, usage mistakes with exit code 2 (apart from server errors, 1), and
// shell completion for bash and zsh.
import { spawnSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PROCESS_COMMANDS } from '../../src/cli/client/help.ts'
import { ENTRIES, isGroup } from '../../src/cli/client/registry.ts'
import { SERVICE_VERSION } from '../../src/contract/version.ts'
import { BIN, ROOT } from '../server-process.ts'
import { type CliWorld, newHome, runCli, signedInHome, startWorld } from './harness.ts'

let world: CliWorld
beforeAll(async () => {
  world = await startWorld()
})
afterAll(async () => {
  await world?.stop()
})

const local = (args: string[]) => runCli(args, { home: newHome() })

describe('version and help', () => {
  it('prints the version with --version, -V and version', async () => {
    for (const args of [['--version'], ['-V'], ['version']]) {
      const result = await local(args)
      expect(result).toEqual({ code: 0, stdout: `shopfloor ${SERVICE_VERSION}\n`, stderr: '' })
    }
  })

  it('serve --help prints the settings and exits at once instead of starting a server; a stray argument is a usage error', async () => {
    const started = Date.now()
    const help = await local(['serve', '--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/^Usage: shopfloor serve\n/)
    for (const name of ['DATABASE_URL', 'PORT', 'REDIS_URL', 'SCHEDULER', '/readyz']) expect(help.stdout).toContain(name)
    expect(Date.now() - started).toBeLessThan(10_000)
    const stray = await local(['serve', '--port', '9999'])
    expect(stray.code).toBe(2)
    expect(stray.stderr).toMatch(/^Usage: shopfloor serve/)
    expect((await local(['mcp', '--help'])).stdout).toMatch(/^Usage: shopfloor mcp/)
  })

  it('the top-level help lists every command, processes and client alike, the same way however it is asked for', async () => {
    const texts = await Promise.all([[], ['--help'], ['-h'], ['help']].map((args) => local(args)))
    for (const result of texts) {
      expect(result.code).toBe(0)
      expect(result.stdout).toBe(texts[0].stdout)
    }
    const names = [...PROCESS_COMMANDS.map((c) => c.name), ...ENTRIES.map((e) => e.name)]
    expect(names).toEqual(expect.arrayContaining(['serve', 'scheduler', 'runner', 'mcp', 'admin', 'completion', 'version', 'tasks', 'login']))
    for (const name of names) expect(texts[0].stdout).toMatch(new RegExp(`^  ${name} `, 'm'))
    expect(texts[0].stdout).toContain('2 usage mistake')
  })
})

describe('exit codes', () => {
  it('usage mistakes exit 2; a group without its command, an unknown command or option too', async () => {
    for (const args of [['frobnicate'], ['tasks'], ['tasks', 'list', '--colour', 'red'], ['completion', 'fish'], ['--bogus']]) {
      const result = await local(args)
      expect(result.code, args.join(' ')).toBe(2)
    }
  })
})

describe('destructive commands', () => {
  it('refuse without --yes when they cannot ask (exit 2, nothing deleted), act with --yes or -y', async () => {
    const { home } = await signedInHome(world, 'YES')
    await world.json(['tasks', 'create', 'Keep me'], { home })
    const refused = await world.run(['tasks', 'delete', 'YES-1'], { home })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/^USAGE_ERROR: Delete task YES-1 and its comments: "shopfloor tasks delete" needs --yes/)
    expect((await world.run(['tasks', 'show', 'YES-1'], { home })).code).toBe(0)
    expect((await world.run(['tasks', 'delete', 'YES-1', '-y'], { home })).code).toBe(0)
    expect((await world.run(['tasks', 'show', 'YES-1'], { home })).code).toBe(4)
  })

  it('ask on a terminal: anything but yes leaves things as they were', async () => {
    const { home } = await signedInHome(world, 'ASK')
    await world.json(['tasks', 'create', 'Ask first'], { home })
    // `script` gives the command a terminal; the answer is typed into it.
    const onTerminal = (answer: string) => spawnSync('script', ['-qec', `${process.execPath} ${BIN} tasks delete ASK-1`, '/dev/null'], {
      cwd: ROOT, input: `${answer}\n`, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home, SHOPFLOOR_URL: world.url }, timeout: 30_000,
    })
    const declined = onTerminal('n')
    expect(declined.stdout).toContain('Delete task ASK-1 and its comments? [y/N]')
    expect(declined.stdout).toContain('Nothing done.')
    expect(declined.status).toBe(1)
    expect((await world.run(['tasks', 'show', 'ASK-1'], { home })).code).toBe(0)
    const accepted = onTerminal('y')
    expect(accepted.status).toBe(0)
    expect((await world.run(['tasks', 'show', 'ASK-1'], { home })).code).toBe(4)
  })

  it('every delete, revoke, remove, terminate and cancel asks first, and its help says so', async () => {
    const destructive = ENTRIES.flatMap((e) => (isGroup(e) ? e.commands.map((c) => ({ path: `${e.name} ${c.name}`, c })) : []))
      .filter(({ c }) => /^(delete|revoke|remove|terminate|cancel)$/.test(c.name))
    expect(destructive.length).toBeGreaterThanOrEqual(8)
    // and nothing else asks
    const asking = ENTRIES.flatMap((e) => (isGroup(e) ? e.commands.filter((c) => c.confirm).map((c) => `${e.name} ${c.name}`) : []))
    expect(asking.sort()).toEqual(destructive.map((d) => d.path).sort())
    for (const { path, c } of destructive) {
      expect(c.confirm, path).toBeTypeOf('function')
      const help = await local([...path.split(' '), '--help'])
      expect(help.stdout, path).toContain('--yes')
    }
  })
})

describe('operator commands', () => {
  it('admin users deactivate and admin members remove need --yes off a terminal (exit 2, before touching any database)', async () => {
    for (const args of [['admin', 'users', 'deactivate', 'someone@example.test'], ['admin', 'members', 'remove', crypto.randomUUID(), 'someone@example.test']]) {
      const result = await local(args)
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr).toMatch(/^USAGE_ERROR: "shopfloor admin \w+ \w+" needs --yes/)
    }
    expect((await local(['admin', 'nothing'])).code).toBe(2)
  })
})

describe('shell completion', () => {
  const complete = (shellScript: string, words: string[]) => {
    const line = words.map((w) => `'${w}'`).join(' ')
    const result = spawnSync('bash', ['-c', `${shellScript}\nCOMP_WORDS=(${line}); COMP_CWORD=${words.length - 1}; _shopfloor; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: 'utf8' })
    expect(result.stderr).toBe('')
    return result.stdout.trim().split('\n').filter(Boolean)
  }

  it('bash completes commands, subcommands and options', async () => {
    const script = (await local(['completion', 'bash'])).stdout
    expect(script).toContain('complete -F _shopfloor shopfloor')
    expect(complete(script, ['shopfloor', 'ta'])).toEqual(['tasks'])
    expect(complete(script, ['shopfloor', 's'])).toEqual(expect.arrayContaining(['serve', 'scheduler']))
    expect(complete(script, ['shopfloor', 'tasks', 'de'])).toEqual(['delete'])
    expect(complete(script, ['shopfloor', 'tasks', 'delete', 'ENG-1', '--y'])).toEqual(['--yes'])
    expect(complete(script, ['shopfloor', 'tasks', 'list', '--comp'])).toEqual(['--company'])
    expect(complete(script, ['shopfloor', 'runner', '--backoff'])).toEqual(['--backoff-scale'])
    expect(complete(script, ['shopfloor', 'completion', ''])).toEqual(['bash', 'zsh'])
  })

  it('zsh loads the same completion through bashcompinit', async () => {
    const bash = (await local(['completion', 'bash'])).stdout
    const zsh = await local(['completion', 'zsh'])
    expect(zsh.code).toBe(0)
    expect(zsh.stdout).toMatch(/^#compdef shopfloor\n/)
    expect(zsh.stdout).toContain('autoload -U +X bashcompinit && bashcompinit')
    expect(zsh.stdout.endsWith(bash)).toBe(true)
  })
})
