// Skills: reusable instructions that agents carry into their runs. A skill is written from a
// folder as Claude Code keeps one (SKILL.md with `name` and `description` front matter, and the
// files beside it), or from options; `attach` and `detach` give it to an agent or take it away.
import fs from 'node:fs'
import path from 'node:path'
import type { Skill, SkillFile, SkillUpdate } from '../../../client/index.ts'
import { isUuid } from '../../../contract/common.ts'
import type { OptionSpec, OptionValues } from '../args.ts'
import { type Cli, type GroupSpec, longText, text } from '../cli.ts'
import { UsageError } from '../errors.ts'
import { details, plural, table, time } from '../format.ts'

const FIELD_OPTIONS: OptionSpec[] = [
  { name: 'from', value: 'DIR', help: "a skill's folder: its SKILL.md (front matter name and description, then the instructions) and the files beside it" },
  { name: 'description', value: 'TEXT', help: 'when to use it (agents choose skills by it)' },
  { name: 'body', value: 'TEXT', help: 'the instructions, Markdown (- reads them from standard input)' },
]

/** What a folder holds, as a skill: SKILL.md's front matter and body, and every other file under it. */
export function readSkillFolder(dir: string): { name?: string; description?: string; body: string; files: SkillFile[] } {
  const main = path.join(dir, 'SKILL.md')
  if (!fs.existsSync(main)) throw new UsageError(`--from ${dir}: no SKILL.md in that folder`)
  const text = fs.readFileSync(main, 'utf8')
  const front = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text)
  const meta: Record<string, string> = {}
  for (const line of front?.[1]?.split(/\r?\n/) ?? []) {
    const pair = /^([A-Za-z_-]+):\s*(.*)$/.exec(line)
    if (pair) meta[pair[1]!] = pair[2]!.replace(/^(["'])(.*)\1$/, '$2')
  }
  const files: SkillFile[] = []
  const walk = (sub: string) => {
    for (const entry of fs.readdirSync(path.join(dir, sub), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const rel = sub ? `${sub}/${entry.name}` : entry.name
      if (entry.isDirectory()) walk(rel)
      else if (entry.isFile() && rel !== 'SKILL.md') files.push({ path: rel, content: fs.readFileSync(path.join(dir, rel), 'utf8') })
    }
  }
  walk('')
  return { name: meta.name, description: meta.description, body: front ? text.slice(front[0].length) : text, files }
}

async function fields(options: OptionValues): Promise<SkillUpdate> {
  const dir = text(options, 'from')
  const folder = dir === undefined ? undefined : readSkillFolder(dir)
  const body = await longText(options, 'body')
  return {
    name: folder?.name,
    description: text(options, 'description') ?? folder?.description,
    body: body === null ? '' : (body ?? folder?.body),
    files: folder?.files,
  }
}

/** A skill by id or name. */
async function findSkill(cli: Cli, ref: string): Promise<Skill> {
  const companyId = await cli.companyId()
  if (isUuid(ref)) return cli.client.skills.get(companyId, ref)
  const found = (await cli.client.skills.list(companyId)).find((s) => s.name === ref.toLowerCase())
  if (!found) throw new UsageError(`No skill named "${ref}": give its name or id (skills list)`)
  return found
}

/** Gives a skill to an agent or takes it away: the agent's `skills` list, in order, changed once. */
function attachment(name: 'attach' | 'detach'): GroupSpec['commands'][number] {
  return {
    name,
    summary: name === 'attach' ? 'Give a skill to an agent (from its next run on)' : 'Take a skill away from an agent',
    args: ['<skill>', '<agent>'],
    notes: 'SKILL is a name or id; AGENT is a name, an id or the start of an id.',
    async run(cli, { args }) {
      const skill = await findSkill(cli, args.skill!)
      const agent = await cli.findAgent(args.agent!)
      const has = agent.skills.includes(skill.id)
      if (has === (name === 'attach')) {
        await cli.print(agent, () => `${agent.name} ${has ? 'already has' : 'does not have'} ${skill.name}`)
        return
      }
      const skills = name === 'attach' ? [...agent.skills, skill.id] : agent.skills.filter((id) => id !== skill.id)
      const updated = await cli.client.agents.update(await cli.companyId(), agent.id, { skills })
      await cli.print(updated, () => `${updated.name} ${name === 'attach' ? 'now has' : 'no longer has'} ${skill.name}`)
    },
  }
}

export const skills: GroupSpec = {
  name: 'skills',
  summary: 'Skills: list, show, write from a folder, attach to agents, delete',
  commands: [
    {
      name: 'list',
      summary: 'List skills',
      async run(cli) {
        const rows = await cli.client.skills.list(await cli.companyId())
        await cli.print(rows, () =>
          table(rows, [
            { header: 'name', value: (s) => s.name },
            { header: 'description', value: (s) => s.description },
            { header: 'files', value: (s) => String(s.files.length), right: true },
          ]),
        )
      },
    },
    {
      name: 'show',
      summary: 'Show a skill: its instructions and the paths of its files',
      args: ['<skill>'],
      notes: 'SKILL is a name or id.',
      async run(cli, { args }) {
        const skill = await findSkill(cli, args.skill!)
        await cli.print(skill, () =>
          `${details([
            ['Name', skill.name],
            ['Id', skill.id],
            ['Description', skill.description],
            ['Files', skill.files.length ? skill.files.map((f) => f.path).join(', ') : plural(0, 'file')],
            ['Updated', time(skill.updated_at)],
          ])}\n\n${skill.body}`,
        )
      },
    },
    {
      name: 'create',
      summary: 'Write a new skill',
      args: ['[name]'],
      notes: 'NAME (lower-case letters, digits, hyphens) may come from the front matter of --from.',
      options: FIELD_OPTIONS,
      async run(cli, { args, options }) {
        const given = await fields(options)
        const name = args.name ?? given.name
        if (!name) throw new UsageError('Give the skill a name, or --from a folder whose SKILL.md names it')
        if (!given.description) throw new UsageError('Give --description, or --from a folder whose SKILL.md has one')
        const skill = await cli.client.skills.create(await cli.companyId(), { ...given, name, description: given.description })
        await cli.print(skill, () => `Created skill ${skill.name} (${plural(skill.files.length, 'file')})`)
      },
    },
    {
      name: 'update',
      summary: 'Change a skill (--from replaces its instructions and files)',
      args: ['<skill>'],
      notes: 'SKILL is a name or id.',
      options: [{ name: 'name', value: 'NAME', help: 'new name' }, ...FIELD_OPTIONS],
      async run(cli, { args, options }) {
        const given = await fields(options)
        // A folder's front matter does not rename the skill: only --name does.
        const change = { ...given, name: text(options, 'name') }
        if (Object.values(change).every((v) => v === undefined)) throw new UsageError('Nothing to change: give at least one option')
        const skill = await findSkill(cli, args.skill!)
        const updated = await cli.client.skills.update(await cli.companyId(), skill.id, change)
        await cli.print(updated, () => `Updated skill ${updated.name}`)
      },
    },
    attachment('attach'),
    attachment('detach'),
    {
      name: 'delete',
      summary: 'Delete a skill (every agent that has it loses it)',
      args: ['<skill>'],
      notes: 'SKILL is a name or id.',
      confirm: (a) => `Delete skill ${a.skill}?`,
      async run(cli, { args }) {
        const skill = await findSkill(cli, args.skill!)
        await cli.client.skills.delete(await cli.companyId(), skill.id)
        await cli.print({ deleted: skill.id }, () => `Deleted skill ${skill.name}`)
      },
    },
  ],
}
