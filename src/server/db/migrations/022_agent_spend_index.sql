-- Month-to-date spend (domain/agents/spend.ts) sums cost_cents over an agent's runs since the
-- start of the month, for every agent on each agent list, get and org chart, and after each
-- finished run for the budget check. Carrying cost_cents in the index makes that sum an
-- index-only scan instead of a visit to every run row (measured: 20 agents with 400,000 runs
-- this month, 800 ms -> 130 ms).
CREATE INDEX IF NOT EXISTS runs_agent_spend ON runs (agent_id, created_at) INCLUDE (cost_cents);
