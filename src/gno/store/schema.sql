-- gno index schema (derived and disposable: every row can be rebuilt from the files).
-- Numbered migrations live in migrations.py; a test proves migrated == fresh.

CREATE TABLE IF NOT EXISTS schema_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS documents (
  id            INTEGER PRIMARY KEY,
  collection    TEXT NOT NULL,
  rel_path      TEXT NOT NULL,
  source_hash   TEXT NOT NULL,
  source_size   INTEGER NOT NULL DEFAULT 0,
  source_mtime_ns INTEGER NOT NULL DEFAULT 0,
  docid         TEXT NOT NULL,
  uri           TEXT NOT NULL,
  title         TEXT NOT NULL DEFAULT '',
  mirror_hash   TEXT NOT NULL,
  body_start_line INTEGER NOT NULL DEFAULT 1,
  frontmatter_json TEXT,
  headings_json TEXT NOT NULL DEFAULT '[]',
  dates_json    TEXT NOT NULL DEFAULT '[]',
  active        INTEGER NOT NULL DEFAULT 1,
  indexed_at    TEXT NOT NULL,
  UNIQUE (collection, rel_path)
);
CREATE INDEX IF NOT EXISTS idx_documents_docid ON documents (docid);
CREATE INDEX IF NOT EXISTS idx_documents_uri ON documents (uri);
CREATE INDEX IF NOT EXISTS idx_documents_mirror ON documents (mirror_hash);

-- canonical markdown, shared by identical documents (content-addressed)
CREATE TABLE IF NOT EXISTS content (
  mirror_hash TEXT PRIMARY KEY,
  markdown    TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS content_chunks (
  mirror_hash TEXT NOT NULL,
  seq         INTEGER NOT NULL,
  pos         INTEGER NOT NULL,
  text        TEXT NOT NULL,
  start_line  INTEGER NOT NULL,
  end_line    INTEGER NOT NULL,
  token_count INTEGER NOT NULL,
  PRIMARY KEY (mirror_hash, seq)
);

-- document-level full text; rowid = documents.id; only active documents are present
CREATE VIRTUAL TABLE IF NOT EXISTS documents_fts USING fts5 (
  filepath, title, body,
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TABLE IF NOT EXISTS doc_tags (
  doc_id INTEGER NOT NULL,
  tag    TEXT NOT NULL COLLATE NOCASE,
  source TEXT NOT NULL,
  PRIMARY KEY (doc_id, tag)
);
CREATE INDEX IF NOT EXISTS idx_doc_tags_tag ON doc_tags (tag);

CREATE TABLE IF NOT EXISTS doc_links (
  doc_id          INTEGER NOT NULL,
  link_type       TEXT NOT NULL,          -- wiki | markdown
  target_ref      TEXT NOT NULL,
  target_ref_norm TEXT NOT NULL,
  anchor          TEXT,
  link_text       TEXT,
  start_line      INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_doc_links_doc ON doc_links (doc_id);
CREATE INDEX IF NOT EXISTS idx_doc_links_target ON doc_links (target_ref_norm);

-- typed edges from front matter `relations:` (e.g. supersedes)
CREATE TABLE IF NOT EXISTS doc_edges (
  doc_id     INTEGER NOT NULL,
  edge_type  TEXT NOT NULL,
  target_uri TEXT NOT NULL,
  source     TEXT NOT NULL DEFAULT 'frontmatter-relation'
);
CREATE INDEX IF NOT EXISTS idx_doc_edges_doc ON doc_edges (doc_id);
CREATE INDEX IF NOT EXISTS idx_doc_edges_target ON doc_edges (edge_type, target_uri);

CREATE TABLE IF NOT EXISTS ingest_errors (
  collection  TEXT NOT NULL,
  rel_path    TEXT NOT NULL,
  code        TEXT NOT NULL,
  message     TEXT NOT NULL,
  occurred_at TEXT NOT NULL,
  PRIMARY KEY (collection, rel_path)
);

-- memory-managed collections: one row per fact document
CREATE TABLE IF NOT EXISTS memory_records (
  doc_id       INTEGER PRIMARY KEY,
  record_id    TEXT,
  content_hash TEXT,
  valid        INTEGER NOT NULL,
  diagnostics_json TEXT NOT NULL DEFAULT '[]',
  meta_json    TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS doc_memory_scopes (
  doc_id INTEGER NOT NULL,
  scope  TEXT NOT NULL,
  PRIMARY KEY (scope, doc_id)
);
CREATE INDEX IF NOT EXISTS idx_doc_memory_scopes_doc ON doc_memory_scopes (doc_id);

-- change journal (create|update|rename|inactivate|reactivate); metadata only, never bodies
CREATE TABLE IF NOT EXISTS document_changes (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  kind        TEXT NOT NULL,
  collection  TEXT NOT NULL,
  doc_id      INTEGER NOT NULL,
  observed_at TEXT NOT NULL,
  previous_json TEXT,
  current_json  TEXT,
  delta_json    TEXT
);
CREATE INDEX IF NOT EXISTS idx_document_changes_doc ON document_changes (doc_id);
