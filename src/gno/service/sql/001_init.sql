-- gno service schema, both dialects: a line that starts `--postgres: ` or `--sqlite: ` is that
-- dialect's alone (PostgreSQL: tsvector full text, pgvector vectors; SQLite: FTS5, vectors as BLOBs).
-- Timestamps are ISO-8601 UTC text; flags are 0/1.
--postgres: CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE tenants (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'read_only', 'suspended')),
  created_at TEXT NOT NULL
);

CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (tenant_id, name)
);

CREATE TABLE access_keys (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects (id),
  key_hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);

-- `namespace` is unique per tenant: a workspace name is the tenant's, except "default", which
-- every project has for itself (namespace "<project_id>/default").
CREATE TABLE workspaces (
  id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL REFERENCES tenants (id),
  project_id TEXT NOT NULL REFERENCES projects (id),
  name TEXT NOT NULL,
  namespace TEXT NOT NULL,
  created_at TEXT NOT NULL,
  deleted_at TEXT,
  UNIQUE (tenant_id, namespace)
);

CREATE TABLE memories (
--postgres:   seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
--sqlite:   seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  tenant_id TEXT NOT NULL,
  project_id TEXT NOT NULL,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  workspace TEXT NOT NULL,
  scope TEXT NOT NULL,
  source TEXT NOT NULL,
  source_id TEXT,
  source_hash TEXT,
  source_revision TEXT,
  fact_key TEXT,
  version INTEGER NOT NULL DEFAULT 1,
--postgres:   confidence DOUBLE PRECISION NOT NULL,
--sqlite:   confidence REAL NOT NULL,
  content TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  derived_from TEXT NOT NULL DEFAULT '[]',
  stale INTEGER NOT NULL DEFAULT 0,
  conflict INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  forgotten_at TEXT,
  embed_fp TEXT,
--postgres:   embedding vector,
--postgres:   archived INTEGER NOT NULL DEFAULT 0,
--postgres:   tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', coalesce(fact_key, '') || ' ' || content)) STORED
--sqlite:   embedding BLOB,
--sqlite:   archived INTEGER NOT NULL DEFAULT 0
);
--postgres: CREATE INDEX memories_tsv ON memories USING gin (tsv);
CREATE INDEX memories_workspace ON memories (workspace_id, forgotten_at);
CREATE INDEX memories_project ON memories (project_id, forgotten_at);
CREATE INDEX memories_tenant ON memories (tenant_id, forgotten_at);
CREATE INDEX memories_fact ON memories (workspace_id, fact_key);
CREATE INDEX memories_source ON memories (project_id, source_id);
CREATE INDEX memories_pending ON memories (archived) WHERE archived = 0;

--sqlite: CREATE VIRTUAL TABLE memories_fts USING fts5 (body, tokenize = 'porter unicode61 remove_diacritics 2');
--sqlite:
-- Derived by the archivist; re-computable from `memories` at any time.
CREATE TABLE graph_relations (
  src_id TEXT NOT NULL,
  dst_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('same_fact', 'derived_from', 'similar')),
--postgres:   score DOUBLE PRECISION NOT NULL,
--sqlite:   score REAL NOT NULL,
  project_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (src_id, dst_id, kind)
);
CREATE INDEX graph_relations_dst ON graph_relations (dst_id);

CREATE TABLE forget_journal (
--postgres:   id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
--sqlite:   id INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant_id TEXT NOT NULL,
  project_id TEXT NOT NULL,
  key_id TEXT,
  memory_id TEXT NOT NULL,
  workspace TEXT NOT NULL,
  source_id TEXT,
  reason TEXT NOT NULL,
  forgotten_at TEXT NOT NULL
);

CREATE TABLE idempotency (
  key_id TEXT NOT NULL,
  project_id TEXT NOT NULL,
  workspace TEXT NOT NULL,
  idem_key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  response TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (key_id, project_id, workspace, idem_key)
);
