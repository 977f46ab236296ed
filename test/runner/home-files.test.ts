// A kept agent home is the agent's to change between runs: links it leaves there, pointing at the
// runner's own files, are never followed by what the runner writes, reads or removes in that
// home (a CLI's settings, the agent's skills, the sessions kept, a shared login's settings).
// Real files and links in temporary folders.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { mergeJsonFile } from '../../src/runner/adapters/cli/mcp.ts'
import { shareLogin } from '../../src/runner/cli-login.ts'
import { keepSession } from '../../src/runner/sessions.ts'
import { installSkills } from '../../src/runner/skills.ts'
import { tempDir } from '../server-process.ts'

/** A runner's file the agent should never reach, with what it holds. */
function runnerFile(name = 'runner.json', text = '{"api_key":"svc_live_secret"}\n') {
  const dir = tempDir('shopfloor-runner-own-')
  const file = path.join(dir, name)
  fs.writeFileSync(file, text)
  return { dir, file, text }
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const full = path.join(dir, entry)
    if (fs.statSync(full).isFile()) out[entry] = fs.readFileSync(full, 'utf8')
  }
  return out
}

describe('files the runner writes in a kept agent home', () => {
  it('a CLI settings file that is a link to a runner file: the link is replaced, the runner file neither read nor written', () => {
    const home = tempDir('shopfloor-home-')
    const own = runnerFile()
    fs.mkdirSync(path.join(home, 'opencode'))
    fs.symlinkSync(own.file, path.join(home, 'opencode', 'opencode.json'))
    let seen: Record<string, unknown> = {}
    mergeJsonFile(home, path.join('opencode', 'opencode.json'), (data) => {
      seen = { ...data }
      data.mcp = { shopfloor: {} }
    })
    expect(seen).toEqual({}) // the runner's file was not read into the agent's settings
    expect(fs.readFileSync(own.file, 'utf8')).toBe(own.text)
    const written = path.join(home, 'opencode', 'opencode.json')
    expect(fs.lstatSync(written).isSymbolicLink()).toBe(false)
    expect(JSON.parse(fs.readFileSync(written, 'utf8'))).toEqual({ mcp: { shopfloor: {} } })
  })

  it('a settings folder that is a link to a runner folder: a real folder takes its place, nothing is written there', () => {
    const home = tempDir('shopfloor-home-')
    const own = runnerFile('settings.json', '{"keep":true}\n')
    fs.symlinkSync(own.dir, path.join(home, '.gemini'))
    mergeJsonFile(home, path.join('.gemini', 'settings.json'), (data) => {
      data.mcpServers = { shopfloor: {} }
    })
    expect(snapshot(own.dir)).toEqual({ 'settings.json': own.text })
    expect(fs.lstatSync(path.join(home, '.gemini')).isDirectory()).toBe(true)
    expect(JSON.parse(fs.readFileSync(path.join(home, '.gemini', 'settings.json'), 'utf8'))).toEqual({ mcpServers: { shopfloor: {} } })
  })

  it('skills: a skills folder linked to a runner folder is neither written nor emptied, at install or at removal', () => {
    const home = tempDir('shopfloor-home-')
    const own = runnerFile()
    // The runner's folder holds a folder named as the skill: an install that followed the link would replace it.
    fs.mkdirSync(path.join(own.dir, 'review'))
    fs.writeFileSync(path.join(own.dir, 'review', 'keep.txt'), 'keep')
    fs.mkdirSync(path.join(home, '.claude'))
    fs.symlinkSync(own.dir, path.join(home, '.claude', 'skills'))
    const before = snapshot(own.dir)
    const skill = { name: 'review', description: 'Reviews', body: 'Read the diff.', files: [{ path: 'notes.md', content: 'n' }] }
    const install = installSkills([skill as any], home, 'agent_cli_1')
    expect(snapshot(own.dir)).toEqual(before)
    expect(fs.readFileSync(path.join(home, '.claude', 'skills', 'review', 'SKILL.md'), 'utf8')).toContain('Read the diff.')

    // During the run the agent links the folder out again; the removal leaves what it points to.
    fs.rmSync(path.join(home, '.claude', 'skills'), { recursive: true })
    fs.symlinkSync(own.dir, path.join(home, '.claude', 'skills'))
    install.remove()
    expect(snapshot(own.dir)).toEqual(before)
  })

  it('the sessions kept: a link in place of the file is replaced, the runner file not appended to', () => {
    const home = tempDir('shopfloor-home-')
    const own = runnerFile()
    fs.mkdirSync(path.join(home, '.shopfloor'))
    fs.symlinkSync(own.file, path.join(home, '.shopfloor', 'sessions'))
    keepSession(home, 'session-1')
    expect(fs.readFileSync(own.file, 'utf8')).toBe(own.text)
    expect(fs.readFileSync(path.join(home, '.shopfloor', 'sessions'), 'utf8')).toBe('session-1\n')
  })

  it('a shared login\'s settings copy: a link in its place is replaced, the runner file not written', () => {
    const runnerHome = tempDir('shopfloor-runner-home-')
    fs.mkdirSync(path.join(runnerHome, '.claude'))
    fs.writeFileSync(path.join(runnerHome, '.claude', '.credentials.json'), '{}')
    fs.writeFileSync(path.join(runnerHome, '.claude.json'), JSON.stringify({ oauthAccount: { email: 'a@b.c' }, projects: { secret: 1 } }))
    const home = tempDir('shopfloor-home-')
    const own = runnerFile()
    fs.symlinkSync(own.file, path.join(home, '.claude.json'))
    shareLogin('agent_cli_1', runnerHome, home, true)
    expect(fs.readFileSync(own.file, 'utf8')).toBe(own.text)
    expect(JSON.parse(fs.readFileSync(path.join(home, '.claude.json'), 'utf8'))).toEqual({ oauthAccount: { email: 'a@b.c' } })
  })
})
