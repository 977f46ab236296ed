-- Work products (API-DECISIONS.md "Work products"): a project's default branch, its checks and
-- its review settings; a run's changes and check results; the run's patch, kept apart from the
-- run's row (up to 5 MiB, read only by GET /runs/{run_id}/patch).
ALTER TABLE projects
  ADD COLUMN default_branch character varying(200) NOT NULL DEFAULT 'main',
  ADD COLUMN checks jsonb NOT NULL DEFAULT '[]'::jsonb,
  ADD COLUMN require_checks boolean NOT NULL DEFAULT false,
  ADD COLUMN merge_on_approve boolean NOT NULL DEFAULT false,
  ADD COLUMN reviewer_agent_id uuid REFERENCES agents(id) ON DELETE SET NULL;

ALTER TABLE runs
  ADD COLUMN changes jsonb,
  ADD COLUMN checks jsonb NOT NULL DEFAULT '[]'::jsonb;

CREATE TABLE run_patches (
  run_id uuid PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  patch text NOT NULL,
  created_at timestamp with time zone NOT NULL DEFAULT now()
);
CREATE INDEX run_patches_company_id_idx ON run_patches (company_id);
