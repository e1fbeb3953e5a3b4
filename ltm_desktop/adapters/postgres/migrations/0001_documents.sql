-- Documents, their content (deduplicated by sha256), pages, chunks and full-text search.
-- Vectors live in chunk_embeddings, created when the embedding model is pinned (its dimension decides the column).
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE contents (
    sha256          text PRIMARY KEY,
    mime            text NOT NULL,
    paginated       boolean NOT NULL,
    page_count      integer NOT NULL,
    ocr_pages       integer NOT NULL DEFAULT 0,
    lifecycle       text NOT NULL DEFAULT 'active' CHECK (lifecycle IN ('active', 'superseded')),
    metadata        jsonb NOT NULL DEFAULT '{}'::jsonb,
    chunker_version integer NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE pages (
    sha256         text NOT NULL REFERENCES contents ON DELETE CASCADE,
    page_no        integer NOT NULL,
    source         text NOT NULL CHECK (source IN ('text', 'ocr', 'none')),
    ocr_confidence real,
    text           text NOT NULL,
    PRIMARY KEY (sha256, page_no)
);

CREATE TABLE documents (
    id         bigserial PRIMARY KEY,
    path       text NOT NULL UNIQUE,
    root       text NOT NULL,
    rel_path   text NOT NULL,
    title      text NOT NULL,
    doc_type   text NOT NULL,
    sha256     text NOT NULL REFERENCES contents,
    size       bigint NOT NULL,
    mtime      double precision NOT NULL,
    pipeline   text NOT NULL,
    deleted_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX documents_sha256 ON documents (sha256);
CREATE INDEX documents_doc_type ON documents (doc_type);

CREATE TABLE chunks (
    id         bigserial PRIMARY KEY,
    sha256     text NOT NULL REFERENCES contents ON DELETE CASCADE,
    ordinal    integer NOT NULL,
    text       text NOT NULL,
    context    text NOT NULL,
    page_from  integer NOT NULL,
    page_to    integer NOT NULL,
    heading    text NOT NULL,
    char_start integer NOT NULL,
    char_end   integer NOT NULL,
    tsv        tsvector GENERATED ALWAYS AS (to_tsvector('english', context || ' ' || text)) STORED,
    UNIQUE (sha256, ordinal)
);
CREATE INDEX chunks_tsv ON chunks USING gin (tsv);

CREATE TABLE model_pin (
    id           integer PRIMARY KEY CHECK (id = 1),
    model_id     text NOT NULL,
    dim          integer NOT NULL,
    files_sha256 text NOT NULL,
    query_prefix text NOT NULL,
    pinned_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ingest_issues (
    path   text PRIMARY KEY,
    kind   text NOT NULL CHECK (kind IN ('failed', 'skipped', 'warning')),
    reason text NOT NULL,
    at     timestamptz NOT NULL DEFAULT now()
);
