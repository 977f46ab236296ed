-- Counts afresh every total the triggers keep for the given companies - tasks_counters_follow()'s
-- (task_counts, task_creator_counts, task_assignee_counts, task_days, goal_task_counts) and
-- runs_totals_follow()'s (run_totals) - from their tasks and runs, in one statement per table:
-- for rows written in bulk with the counting skipped, a company import
-- (shopfloor.uncounted_company, below) and the benchmark's seed. Each row's counters then
-- stand in slot 0.
--
-- Counting row by row in one transaction costs more with every row: each update of one
-- counter row meets all of that transaction's earlier versions of it (an import of 16,000
-- tasks took 3.1 s counted so, 0.8 s counted afresh).
CREATE OR REPLACE FUNCTION recount_totals(companies uuid[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM task_counts WHERE company_id = ANY(companies);
  INSERT INTO task_counts (company_id, status, priority, n)
  SELECT company_id, status, priority, count(*) FROM tasks WHERE company_id = ANY(companies) GROUP BY 1, 2, 3;

  DELETE FROM task_creator_counts WHERE company_id = ANY(companies);
  INSERT INTO task_creator_counts (company_id, user_id, status, n)
  SELECT company_id, created_by_user_id, status, count(*) FROM tasks
   WHERE company_id = ANY(companies) AND created_by_user_id IS NOT NULL GROUP BY 1, 2, 3;

  DELETE FROM task_assignee_counts WHERE company_id = ANY(companies);
  INSERT INTO task_assignee_counts (company_id, agent_id, n)
  SELECT company_id, assignee_agent_id, count(*) FROM tasks
   WHERE company_id = ANY(companies) AND assignee_agent_id IS NOT NULL AND status NOT IN ('done', 'cancelled') GROUP BY 1, 2;

  DELETE FROM task_days WHERE company_id = ANY(companies);
  INSERT INTO task_days (company_id, day, created, completed)
  SELECT company_id, day, sum(created), sum(completed) FROM (
    SELECT company_id, (created_at AT TIME ZONE 'UTC')::date AS day, 1 AS created, 0 AS completed
      FROM tasks WHERE company_id = ANY(companies)
    UNION ALL
    SELECT company_id, (completed_at AT TIME ZONE 'UTC')::date, 0, 1
      FROM tasks WHERE company_id = ANY(companies) AND completed_at IS NOT NULL) d
   GROUP BY 1, 2;

  DELETE FROM goal_task_counts WHERE goal_id IN (SELECT id FROM goals WHERE company_id = ANY(companies));
  INSERT INTO goal_task_counts (goal_id, total, done)
  SELECT goal_id, count(*), count(*) FILTER (WHERE status = 'done') FROM tasks
   WHERE company_id = ANY(companies) AND goal_id IS NOT NULL GROUP BY 1;

  DELETE FROM run_totals WHERE company_id = ANY(companies);
  INSERT INTO run_totals (company_id, day, agent_id, project_id, runs, runs_succeeded, runs_failed, cost_cents, tokens_in, tokens_out, plan_cost_cents)
  SELECT r.company_id, (r.created_at AT TIME ZONE 'UTC')::date, r.agent_id, t.project_id, count(*),
         count(*) FILTER (WHERE r.status = 'succeeded'), count(*) FILTER (WHERE r.status = 'failed'),
         sum(r.cost_cents), sum(r.tokens_in), sum(r.tokens_out), coalesce(sum(r.cost_cents) FILTER (WHERE r.billing = 'plan'), 0)
    FROM runs r LEFT JOIN tasks t ON t.id = r.task_id
   WHERE r.company_id = ANY(companies) GROUP BY 1, 2, 3, 4;
END $$;
