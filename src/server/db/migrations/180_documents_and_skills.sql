-- Company knowledge (API-DECISIONS.md "Company knowledge and skills"): Markdown documents with
-- tags, an optional project, and every version kept with who wrote it; skills, reusable
-- instruction bundles that agents carry into their runs.
--
-- Full-text search is PostgreSQL's own: a stored tsvector of the title (weight A) and the body
-- (weight B) under the `english` configuration, which the embedded database has too, with a GIN
-- index. An agent's memory is the one document whose agent_id is that agent.
CREATE TABLE documents (
  id uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
  company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  title varchar(200) NOT NULL,
  body text NOT NULL DEFAULT '',
  tags text[] NOT NULL DEFAULT '{}',
  project_id uuid REFERENCES projects(id) ON DELETE SET NULL,
  agent_id uuid REFERENCES agents(id) ON DELETE CASCADE,
  pinned boolean NOT NULL DEFAULT false,
  agent_editable boolean NOT NULL DEFAULT false,
  version integer NOT NULL DEFAULT 1,
  created_by_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
  created_by_agent_id uuid REFERENCES agents(id) ON DELETE SET NULL,
  updated_by_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
  updated_by_agent_id uuid REFERENCES agents(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', body), 'B')
  ) STORED
);
CREATE INDEX documents_company ON documents (company_id, updated_at DESC, id);
CREATE INDEX documents_search ON documents USING gin (search);
CREATE INDEX documents_tags ON documents USING gin (tags);
CREATE UNIQUE INDEX documents_memory ON documents (agent_id) WHERE agent_id IS NOT NULL;
CREATE INDEX documents_pinned ON documents (company_id) WHERE pinned;

-- Every write of a document, the first included: what it said and who wrote it (a person, or an
-- agent through a run).
CREATE TABLE document_versions (
  document_id uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  version integer NOT NULL,
  title varchar(200) NOT NULL,
  body text NOT NULL,
  tags text[] NOT NULL,
  user_id uuid REFERENCES users(id) ON DELETE SET NULL,
  agent_id uuid REFERENCES agents(id) ON DELETE SET NULL,
  run_id uuid REFERENCES runs(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (document_id, version)
);

CREATE TABLE skills (
  id uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
  company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
  name varchar(64) NOT NULL CHECK (name ~ '^[a-z0-9-]{1,64}$'),
  description varchar(1024) NOT NULL,
  body text NOT NULL DEFAULT '',
  files jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (company_id, name)
);

-- Skills an agent carries, in the order they were given; a deleted skill leaves the lists it was in.
ALTER TABLE agents ADD COLUMN skills uuid[] NOT NULL DEFAULT '{}';
