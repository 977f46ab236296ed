-- A run that merges a task's approved branch into its project's default branch (merge_on_approve)
-- instead of starting the agent: docs/verified-work.md.
ALTER TABLE runs ADD COLUMN purpose text NOT NULL DEFAULT 'work' CHECK (purpose IN ('work', 'merge'));
