// An agent's skills, installed in the run's home for that run only: where Claude Code looks for
// them (`.claude/skills/<name>/SKILL.md`, loaded by the CLI itself), otherwise in
// `.shopfloor/skills/<name>/` and named in the prompt with the path to read. Each skill is a
// folder of its own, removed when the run ends, so a kept home (--agent-homes) carries no skill
// the agent no longer has. The server checks names and file paths; they are checked again here,
// since these files are written on the runner's machine.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import type { Skill } from '../client/types.ts'
import { SKILL_NAME_PATTERN, skillFilePathProblem } from '../contract/skills.ts'
import { homeFolder, removeHomeEntry } from './home-files.ts'

/** Adapters whose CLI loads skills from a folder of the home, and that folder. */
const NATIVE_FOLDERS: Record<string, string> = { agent_cli_1: join('.claude', 'skills') }

export interface InstalledSkill {
  name: string
  description: string
  /** The skill's SKILL.md. */
  path: string
}

export interface SkillInstall {
  /** The CLI finds them itself (no paths needed in the prompt). */
  native: boolean
  skills: InstalledSkill[]
  /** Skills left out, with why (for the transcript). */
  skipped: string[]
  remove(): void
}

/** `---` front matter as SKILL.md files carry it: the description on one line, quoted as JSON. */
function skillFile(skill: Skill): string {
  const description = JSON.stringify(skill.description.replace(/\s+/g, ' ').trim())
  return `---\nname: ${skill.name}\ndescription: ${description}\n---\n\n${skill.body.trimEnd()}\n`
}

export function installSkills(skills: readonly Skill[], home: string, adapter: string): SkillInstall {
  const native = adapter in NATIVE_FOLDERS
  const baseRelative = NATIVE_FOLDERS[adapter] ?? join('.shopfloor', 'skills')
  const installed: InstalledSkill[] = []
  const skipped: string[] = []
  const folders: string[] = []
  for (const skill of skills) {
    if (!new RegExp(SKILL_NAME_PATTERN).test(skill.name)) {
      skipped.push(`${JSON.stringify(skill.name)}: not a skill name`)
      continue
    }
    const folder = join(home, baseRelative, skill.name)
    const bad = skill.files.find((f) => skillFilePathProblem(f.path) || !inside(folder, resolve(folder, f.path)))
    if (bad) {
      skipped.push(`${skill.name}: the file path ${JSON.stringify(bad.path)} ${skillFilePathProblem(bad.path) ?? 'leaves its folder'}`)
      continue
    }
    // A kept home is the agent's: no link it left on the way is followed (home-files.ts). The
    // skill's own folder is made afresh, so nothing inside it is the agent's.
    removeHomeEntry(home, join(baseRelative, skill.name))
    homeFolder(home, join(baseRelative, skill.name))
    folders.push(join(baseRelative, skill.name))
    writeFileSync(join(folder, 'SKILL.md'), skillFile(skill))
    for (const file of skill.files) {
      const target = resolve(folder, file.path)
      mkdirSync(dirname(target), { recursive: true })
      writeFileSync(target, file.content)
    }
    installed.push({ name: skill.name, description: skill.description, path: join(folder, 'SKILL.md') })
  }
  return {
    native,
    skills: installed,
    skipped,
    remove: () => {
      for (const folder of folders) removeHomeEntry(home, folder)
    },
  }
}

function inside(folder: string, target: string): boolean {
  const rel = relative(folder, target)
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)
}
