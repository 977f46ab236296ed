// The knowledge commands: documents (search, a body from a file, versions) and
// skills (written from a folder as Claude Code keeps one, attached to an agent, deleted).
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestApp } from '../helpers.ts'
import { tempDir } from '../server-process.ts'
import { listeningApp, operator } from './in-process.ts'

let api: TestApp
let url: string
let close: () => Promise<void>
beforeAll(async () => {
  ;({ api, url, close } = await listeningApp())
})
afterAll(async () => {
  await close?.()
})

describe('documents', () => {
  it('writes, searches by words in the body, reads a body from a file, and shows versions', async () => {
    const op = await operator(api, url, 'KDOC')
    const project = await op.client.projects.create(op.companyId, { name: 'Launch' })
    const doc = await op.json('documents', 'create', 'Release', 'checklist', '--body', 'Tag the build, then announce it.',
      '--tag', 'release,process', '--project', 'launch', '--pinned', 'on')
    expect(doc).toMatchObject({ title: 'Release checklist', tags: ['release', 'process'], project_id: project.id, pinned: true, version: 1 })
    await op.json('documents', 'create', 'Style guide', '--body', 'Short sentences.')

    const found = await op.json('documents', 'list', 'announce')
    expect(found.map((d: { title: string }) => d.title)).toEqual(['Release checklist'])
    const table = await op.run('documents', 'list', '--pinned')
    expect(table.stdout).toMatch(/^TITLE\s+TAGS\s+VERSION\s+UPDATED\s+ID\n/)
    expect(table.stdout).toContain('Release checklist')
    expect(table.stdout).not.toContain('Style guide')

    const file = path.join(tempDir('shopfloor-doc-'), 'body.md')
    fs.writeFileSync(file, '# Release\n\nTag, test, announce.\n')
    const updated = await op.json('documents', 'update', 'release checklist', '--body-file', file)
    expect(updated).toMatchObject({ version: 2, body: '# Release\n\nTag, test, announce.\n' })
    const shown = await op.run('documents', 'show', 'Release checklist')
    expect(shown.stdout).toMatch(/Version:\s+2\n/)
    expect(shown.stdout).toContain('Tag, test, announce.')
    const versions = await op.json('documents', 'show', doc.id, '--versions')
    expect(versions.map((v: { version: number }) => v.version)).toEqual([2, 1])

    const both = await op.run('documents', 'update', doc.id, '--body', 'x', '--body-file', file)
    expect(both.code).toBe(2)
    expect(both.stderr).toMatch(/--body or --body-file, not both/)
    const unknown = await op.run('documents', 'show', 'No such page')
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/No document titled "No such page"/)

    expect((await op.run('documents', 'delete', doc.id)).code).toBe(2) // no terminal, no --yes
    expect((await op.run('documents', 'delete', doc.id, '--yes')).code).toBe(0)
    expect((await op.client.documents.list(op.companyId)).map((d) => d.title)).toEqual(['Style guide'])
  })
})

describe('skills', () => {
  it('writes a skill from a folder with SKILL.md and its files, attaches it to an agent, detaches and deletes it', async () => {
    const op = await operator(api, url, 'KSKL')
    const dir = tempDir('shopfloor-skill-')
    fs.writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: release-notes\ndescription: "Use when writing release notes"\n---\n# Release notes\n\nRead template.md first.\n')
    fs.mkdirSync(path.join(dir, 'examples'))
    fs.writeFileSync(path.join(dir, 'template.md'), '## Added\n')
    fs.writeFileSync(path.join(dir, 'examples', 'one.md'), 'An example.\n')

    const skill = await op.json('skills', 'create', '--from', dir)
    expect(skill).toMatchObject({
      name: 'release-notes',
      description: 'Use when writing release notes',
      body: '# Release notes\n\nRead template.md first.\n',
      files: [{ path: 'examples/one.md', content: 'An example.\n' }, { path: 'template.md', content: '## Added\n' }],
    })
    const agent = await op.client.agents.hire(op.companyId, { name: 'Ada' })
    expect((await op.run('skills', 'attach', 'release-notes', 'Ada')).stdout).toBe('Ada now has release-notes\n')
    expect((await op.client.agents.get(op.companyId, agent.id)).skills).toEqual([skill.id])
    expect((await op.run('skills', 'attach', 'release-notes', 'Ada')).stdout).toBe('Ada already has release-notes\n')

    const renamed = await op.json('skills', 'update', 'release-notes', '--description', 'Use for every release')
    expect(renamed).toMatchObject({ name: 'release-notes', description: 'Use for every release', files: skill.files })
    expect((await op.run('skills', 'list')).stdout).toMatch(/release-notes\s+Use for every release\s+2\n/)

    expect((await op.run('skills', 'detach', skill.id, 'Ada')).stdout).toBe('Ada no longer has release-notes\n')
    expect((await op.client.agents.get(op.companyId, agent.id)).skills).toEqual([])

    const bad = await op.run('skills', 'create', 'Bad Name', '--description', 'x')
    expect(bad.code).toBe(5)
    expect(bad.stderr).toMatch(/^VALIDATION_ERROR: name/)
    const noFolder = await op.run('skills', 'create', '--from', path.join(dir, 'examples'))
    expect(noFolder.code).toBe(2)
    expect(noFolder.stderr).toMatch(/no SKILL.md in that folder/)

    expect((await op.run('skills', 'delete', 'release-notes', '--yes')).code).toBe(0)
    expect(await op.client.skills.list(op.companyId)).toEqual([])
  })
})
