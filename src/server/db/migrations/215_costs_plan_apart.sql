-- The costs page shows API spend and plan-equivalent spend apart (API-DECISIONS.md "Provider
-- limits, plans and fallback"): run_totals.plan_cost_cents is the part of cost_cents of runs
-- billed on a subscription plan (runs.billing = 'plan', a list-price equivalent), kept by the
-- same triggers as the rest. run_totals_add takes it as an eleventh argument; the ten-argument
-- function goes (a call with ten would otherwise still find it).
ALTER TABLE run_totals ADD COLUMN plan_cost_cents bigint NOT NULL DEFAULT 0;
DROP FUNCTION IF EXISTS run_totals_add(uuid, date, uuid, uuid, integer, integer, integer, bigint, bigint, bigint);
\ir ../functions/run_totals_add.sql
\ir ../functions/runs_totals_follow.sql
\ir ../functions/run_totals_move_task.sql
\ir ../functions/recount_totals.sql

-- A run's billing is set with its final report, often alone of the totalled columns.
DROP TRIGGER runs_retotalled ON runs;
CREATE CONSTRAINT TRIGGER runs_retotalled AFTER UPDATE OF status, cost_cents, tokens_in, tokens_out, agent_id, created_at, billing ON runs
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW WHEN ((OLD.status = 'succeeded') <> (NEW.status = 'succeeded')
                  OR (OLD.status = 'failed') <> (NEW.status = 'failed')
                  OR OLD.cost_cents <> NEW.cost_cents OR OLD.tokens_in <> NEW.tokens_in OR OLD.tokens_out <> NEW.tokens_out
                  OR OLD.agent_id <> NEW.agent_id OR OLD.created_at <> NEW.created_at OR OLD.billing <> NEW.billing)
  EXECUTE FUNCTION runs_totals_follow();

-- The plan runs recorded before this migration.
UPDATE run_totals t SET plan_cost_cents = p.cost
  FROM (SELECT r.company_id, (r.created_at AT TIME ZONE 'UTC')::date AS day, r.agent_id, tk.project_id, sum(r.cost_cents) AS cost
          FROM runs r LEFT JOIN tasks tk ON tk.id = r.task_id
         WHERE r.billing = 'plan' GROUP BY 1, 2, 3, 4) p
 WHERE t.company_id = p.company_id AND t.day = p.day AND t.agent_id = p.agent_id AND t.project_id IS NOT DISTINCT FROM p.project_id;
