// The scale workload's bulk seed (bench/workloads/scale-seed.ts) skips every trigger and counts
// the totals afterwards. Workload 4's dashboards, costs and agents list read those totals, so
// they must come out as the counters' triggers keep them: the same rows seeded both ways, with
// the triggers at work and in bulk, give the same totals.
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { seedCompanies } from '../../bench/workloads/scale-seed.ts'
import { scratchPostgres, TEST_DATABASE_URL } from '../helpers.ts'

/** Every total of a company, with agents and projects by name (each seed makes its own). */
async function totals(c: pg.Client, companyId: string) {
  const rows = async (sql: string) => (await c.query(sql, [companyId])).rows
  return {
    byStatus: await rows(
      `SELECT status, priority, sum(n)::int AS n FROM task_counts WHERE company_id = $1 GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2`,
    ),
    byCreator: await rows(
      `SELECT status, sum(n)::int AS n FROM task_creator_counts WHERE company_id = $1 GROUP BY 1 HAVING sum(n) <> 0 ORDER BY 1`,
    ),
    openByAssignee: await rows(
      `SELECT a.name, sum(c.n)::int AS n FROM task_assignee_counts c JOIN agents a ON a.id = c.agent_id
        WHERE c.company_id = $1 GROUP BY 1 HAVING sum(c.n) <> 0 ORDER BY 1`,
    ),
    days: await rows(
      `SELECT day::text, sum(created)::int AS created, sum(completed)::int AS completed FROM task_days WHERE company_id = $1
        GROUP BY 1 HAVING (sum(created), sum(completed)) <> (0, 0) ORDER BY 1`,
    ),
    goals: await rows(
      `SELECT g.title, sum(c.total)::int AS total, sum(c.done)::int AS done FROM goal_task_counts c JOIN goals g ON g.id = c.goal_id
        WHERE g.company_id = $1 GROUP BY 1 ORDER BY 1`,
    ),
    runs: await rows(
      `SELECT t.day::text, a.name AS agent, p.name AS project, sum(t.runs)::int AS runs, sum(t.runs_succeeded)::int AS runs_succeeded,
              sum(t.runs_failed)::int AS runs_failed, sum(t.cost_cents)::int AS cost_cents, sum(t.tokens_in)::int AS tokens_in,
              sum(t.tokens_out)::int AS tokens_out
         FROM run_totals t JOIN agents a ON a.id = t.agent_id LEFT JOIN projects p ON p.id = t.project_id
        WHERE t.company_id = $1 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    ),
  }
}

describe.runIf(TEST_DATABASE_URL)("the scale workload's bulk seed", () => {
  it('leaves every total as the triggers keep it', async () => {
    const scratch = (await scratchPostgres())!
    const c = new pg.Client({ connectionString: scratch.url })
    await c.connect()
    try {
      const user = (await c.query(`INSERT INTO users (email, name) VALUES ('seeder@example.com', 'Seeder') RETURNING id`)).rows[0].id
      const company = async (prefix: string) =>
        (await c.query('INSERT INTO companies (name, task_prefix) VALUES ($1, $1) RETURNING id', [prefix])).rows[0].id as string
      const size = { agents: 3, tasks: 400, auditEvents: 50, runs: 600 }
      const now = new Date('2026-03-15T12:00:00Z')
      const seed = async (prefix: string, bulk: boolean) => {
        const ids = { large: await company(prefix), mine: await company(`${prefix}M`) }
        await seedCompanies(c, [{ companyId: ids.large, userId: user, size }], { companyId: ids.mine, userId: user, tasks: 40 }, { bulk, now })
        return ids
      }
      const kept = await seed('KEPT', false)
      const bulk = await seed('BULK', true)

      for (const which of ['large', 'mine'] as const) {
        const expected = await totals(c, kept[which])
        expect(await totals(c, bulk[which])).toEqual(expected)
      }
      // And there is something to compare: history in every total of the large company.
      const large = await totals(c, kept.large)
      for (const [name, list] of Object.entries(large)) expect(list.length, name).toBeGreaterThan(1)
      expect(large.runs.reduce((sum, r) => sum + r.runs, 0)).toBe(size.runs + size.agents) // and one queued run per agent
    } finally {
      await c.end()
      await scratch.drop()
    }
  })
})
