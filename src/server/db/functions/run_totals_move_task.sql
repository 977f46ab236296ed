-- Moves the totals of a task's runs from one project to another (no project: NULL). Rows are
-- touched in key order - each pair of rows in project order, no project last - so two moves
-- cannot deadlock on them.
CREATE OR REPLACE FUNCTION run_totals_move_task(task uuid, from_project uuid, to_project uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  g record;
  to_first boolean := from_project IS NULL OR (to_project IS NOT NULL AND to_project < from_project);
BEGIN
  FOR g IN
    SELECT r.company_id, (r.created_at AT TIME ZONE 'UTC')::date AS day, r.agent_id, count(*)::int AS runs,
           (count(*) FILTER (WHERE r.status = 'succeeded'))::int AS succeeded,
           (count(*) FILTER (WHERE r.status = 'failed'))::int AS failed,
           sum(r.cost_cents)::bigint AS cost, sum(r.tokens_in)::bigint AS t_in, sum(r.tokens_out)::bigint AS t_out,
           coalesce(sum(r.cost_cents) FILTER (WHERE r.billing = 'plan'), 0)::bigint AS plan_cost
      FROM runs r WHERE r.task_id = task
     GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  LOOP
    IF to_first THEN
      PERFORM run_totals_add(g.company_id, g.day, g.agent_id, to_project, g.runs, g.succeeded, g.failed, g.cost, g.t_in, g.t_out, g.plan_cost);
    END IF;
    PERFORM run_totals_add(g.company_id, g.day, g.agent_id, from_project, -g.runs, -g.succeeded, -g.failed, -g.cost, -g.t_in, -g.t_out, -g.plan_cost);
    IF NOT to_first THEN
      PERFORM run_totals_add(g.company_id, g.day, g.agent_id, to_project, g.runs, g.succeeded, g.failed, g.cost, g.t_in, g.t_out, g.plan_cost);
    END IF;
  END LOOP;
END $$;
