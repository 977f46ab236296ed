import { type Skill, type SkillCreate, type SkillFile, type SkillUpdate, skillFilePathProblem } from '../../contract/skills.ts'
import type { Actor } from '../../server/actor.ts'
import type { Queryable } from '../../server/db/db.ts'
import type { Tx } from '../../server/db/write.ts'
import { AppError, notFound, validationError } from '../../server/errors.ts'
import { diff, recordAudit } from '../audit/record.ts'
import { checkBodySize } from '../documents/service.ts'

// Skills (API-DECISIONS.md "Company knowledge and skills"): a name the CLI knows the skill by,
// a description it chooses the skill by, Markdown instructions and supporting files. A file's
// path is checked here as well as by the runner that writes it: only plain relative paths
// inside the skill's own folder.

export const SKILL_COLUMNS = 'id, company_id, name, description, body, files, created_at, updated_at'
const AUDITED = ['name', 'description'] as const

function checkFiles(files: SkillFile[] | undefined): void {
  if (!files) return
  const seen = new Set<string>()
  files.forEach((file, i) => {
    const problem = skillFilePathProblem(file.path)
    if (problem) {
      throw validationError([{ loc: ['body', 'files', i, 'path'], message: `"${file.path}" ${problem}`, type: 'value_error', input: file.path }])
    }
    if (seen.has(file.path)) {
      throw validationError([{ loc: ['body', 'files', i, 'path'], message: `"${file.path}" appears twice`, type: 'value_error', input: file.path }])
    }
    seen.add(file.path)
    checkBodySize(`files[${i}].content`, file.content)
  })
}

export function listSkills(db: Queryable, companyId: string): Promise<Skill[]> {
  return db.many<Skill>(`SELECT ${SKILL_COLUMNS} FROM skills WHERE company_id = $1 ORDER BY name`, [companyId])
}

export async function getSkill(db: Queryable, companyId: string, skillId: string, lock = false): Promise<Skill> {
  const skill = await db.one<Skill>(
    `SELECT ${SKILL_COLUMNS} FROM skills WHERE id = $1 AND company_id = $2 ${lock ? 'FOR NO KEY UPDATE' : ''}`,
    [skillId, companyId],
  )
  if (!skill) throw notFound('Skill')
  return skill
}

/** 404 naming the first id that is not a skill of the company (for an agent's `skills`). */
export async function checkSkillIds(db: Queryable, companyId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return
  const found = await db.many<{ id: string }>('SELECT id FROM skills WHERE company_id = $1 AND id = ANY($2::uuid[])', [companyId, ids])
  const known = new Set(found.map((r) => r.id))
  const missing = ids.find((id) => !known.has(id))
  if (missing) throw new AppError('NOT_FOUND', `Skill ${missing} not found`, { skill_id: missing })
}

function taken(name: string): AppError {
  return new AppError('SKILL_EXISTS', `The company already has a skill named "${name}"`, { name })
}

export async function createSkill(tx: Tx, companyId: string, actor: Actor, input: SkillCreate): Promise<Skill> {
  checkBodySize('body', input.body)
  checkFiles(input.files)
  const skill = await tx.one<Skill>(
    `INSERT INTO skills (company_id, name, description, body, files) VALUES ($1, $2, $3, $4, $5::jsonb)
     ON CONFLICT (company_id, name) DO NOTHING RETURNING ${SKILL_COLUMNS}`,
    [companyId, input.name, input.description, input.body ?? '', JSON.stringify(input.files ?? [])],
  )
  if (!skill) throw taken(input.name)
  await recordAudit(tx, { companyId, actor, verb: 'created', entityType: 'skill', entityId: skill.id, label: skill.name, changes: diff({}, skill, AUDITED) })
  tx.publish(companyId, { type: 'skill.created', id: skill.id })
  return skill
}

export async function updateSkill(tx: Tx, companyId: string, skillId: string, actor: Actor, patch: SkillUpdate): Promise<Skill> {
  checkBodySize('body', patch.body)
  checkFiles(patch.files)
  const before = await getSkill(tx, companyId, skillId, true)
  const after = { ...before, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) } as Skill
  const changes = diff(before, after, AUDITED)
  if (after.body !== before.body) changes.body = ['(before)', '(changed)']
  if (JSON.stringify(after.files) !== JSON.stringify(before.files)) changes.files = [before.files.map((f) => f.path), after.files.map((f) => f.path)]
  if (Object.keys(changes).length === 0) return before
  if (after.name !== before.name && (await tx.one('SELECT 1 AS x FROM skills WHERE company_id = $1 AND name = $2', [companyId, after.name]))) {
    throw taken(after.name)
  }
  const skill = (await tx.one<Skill>(
    `UPDATE skills SET name = $3, description = $4, body = $5, files = $6::jsonb, updated_at = now()
      WHERE id = $1 AND company_id = $2 RETURNING ${SKILL_COLUMNS}`,
    [skillId, companyId, after.name, after.description, after.body, JSON.stringify(after.files)],
  ))!
  await recordAudit(tx, { companyId, actor, verb: 'updated', entityType: 'skill', entityId: skillId, label: skill.name, changes })
  tx.publish(companyId, { type: 'skill.updated', id: skillId })
  return skill
}

/** Deletes the skill and takes it off every agent that carried it. */
export async function deleteSkill(tx: Tx, companyId: string, skillId: string, actor: Actor): Promise<void> {
  const skill = await getSkill(tx, companyId, skillId, true)
  const agents = await tx.many<{ id: string }>(
    'UPDATE agents SET skills = array_remove(skills, $1) WHERE company_id = $2 AND $1 = ANY(skills) RETURNING id',
    [skillId, companyId],
  )
  await tx.query('DELETE FROM skills WHERE id = $1 AND company_id = $2', [skillId, companyId])
  await recordAudit(tx, { companyId, actor, verb: 'deleted', entityType: 'skill', entityId: skillId, label: skill.name })
  tx.publish(companyId, { type: 'skill.deleted', id: skillId })
  for (const agent of agents) tx.publish(companyId, { type: 'agent.updated', id: agent.id })
}
