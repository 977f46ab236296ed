import { type Static, Type } from 'typebox'
import { Timestamp, Uuid } from './common.ts'

// Skills: reusable instruction bundles (a SKILL.md-style body plus files) that agents carry
// (Agent field `skills`). The runner installs an agent's skills for one run where its CLI looks
// for them (Claude Code: `.claude/skills/<name>/SKILL.md` in the agent's home) or names them in
// the prompt with the path to read.

export const SKILL_NAME_PATTERN = '^[a-z0-9-]{1,64}$'
export const SKILL_FILES_MAX = 50

const Name = Type.String({ minLength: 1, maxLength: 64, pattern: SKILL_NAME_PATTERN, description: 'Lower-case letters, digits and hyphens, 1-64' })
const Description = Type.String({ minLength: 1, maxLength: 1024, description: 'When to use the skill: agents choose skills by it' })
export const SkillFile = Type.Object({
  path: Type.String({ minLength: 1, maxLength: 200, description: 'Relative to the skill’s folder; no `..`, not absolute' }),
  content: Type.String({ description: 'Text, at most 1 MiB' }),
})
export type SkillFile = Static<typeof SkillFile>
const Files = Type.Array(SkillFile, { maxItems: SKILL_FILES_MAX })

export const SkillCreateBody = Type.Object({
  name: Name,
  description: Description,
  body: Type.Optional(Type.String({ description: 'Markdown instructions (the SKILL.md body), at most 1 MiB' })),
  files: Type.Optional(Files),
})
export type SkillCreate = Static<typeof SkillCreateBody>

export const SkillPatchBody = Type.Object({
  name: Type.Optional(Name),
  description: Type.Optional(Description),
  body: Type.Optional(Type.String()),
  files: Type.Optional(Files),
})
export type SkillUpdate = Static<typeof SkillPatchBody>

export const Skill = Type.Object({
  id: Uuid,
  company_id: Uuid,
  name: Type.String(),
  description: Type.String(),
  body: Type.String(),
  files: Type.Array(SkillFile),
  created_at: Timestamp,
  updated_at: Timestamp,
})
export type Skill = Static<typeof Skill>

/**
 * Why a skill file's path cannot be written inside the skill's folder, or null when it can: it
 * must be relative, use `/` between plain names (no `.` or `..` segment, no backslash, no NUL or
 * control character), and not be SKILL.md (the body is that file).
 */
export function skillFilePathProblem(path: string): string | null {
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'must be relative, not absolute'
  if (path.includes('\\')) return 'must use / between folders, not \\'
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f]/.test(path)) return 'must not contain control characters'
  const segments = path.split('/')
  if (segments.some((s) => s === '..')) return 'must not contain ".."'
  if (segments.some((s) => s === '' || s === '.')) return 'must not contain empty or "." segments'
  if (path === 'SKILL.md') return 'SKILL.md is the skill’s body: write it as `body`'
  return null
}
