-- Adds to one row of run_totals: the connection's slot of it (counter_slot()). PL/pgSQL rather
-- than SQL: a trigger calling a SQL function plans its statement again on every call (0.3 ms,
-- more than the insert itself), while PL/pgSQL keeps the plan for the connection. `plan_cost` is the part of `cost` of runs billed on a
-- subscription plan (runs.billing = 'plan': a list-price equivalent, not money spent).
CREATE OR REPLACE FUNCTION run_totals_add(company uuid, on_day date, agent uuid, project uuid, n_runs integer, n_succeeded integer,
                                          n_failed integer, cost bigint, t_in bigint, t_out bigint, plan_cost bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO run_totals AS t (company_id, day, agent_id, project_id, runs, runs_succeeded, runs_failed, cost_cents, tokens_in, tokens_out, plan_cost_cents, slot)
  VALUES (company, on_day, agent, project, n_runs, n_succeeded, n_failed, cost, t_in, t_out, plan_cost, counter_slot())
  ON CONFLICT ON CONSTRAINT run_totals_key DO UPDATE SET
    runs = t.runs + excluded.runs,
    runs_succeeded = t.runs_succeeded + excluded.runs_succeeded,
    runs_failed = t.runs_failed + excluded.runs_failed,
    cost_cents = t.cost_cents + excluded.cost_cents,
    tokens_in = t.tokens_in + excluded.tokens_in,
    tokens_out = t.tokens_out + excluded.tokens_out,
    plan_cost_cents = t.plan_cost_cents + excluded.plan_cost_cents;
END $$;
