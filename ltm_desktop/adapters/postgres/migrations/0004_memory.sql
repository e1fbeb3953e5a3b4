-- Shared long-term memory: memories, their append-only versions (with provenance), forget/restore events,
-- and chunks for full-text search. Vectors live in memory_chunk_embeddings, created (like chunk_embeddings)
-- when the embedding model is pinned, because the model decides the dimension.
CREATE TABLE memories (
    id              text PRIMARY KEY,
    author          text NOT NULL,
    session_key     text UNIQUE,          -- set for transcripts saved with session_save
    created_at      timestamptz NOT NULL,
    current_version integer NOT NULL,
    updated_at      timestamptz NOT NULL, -- time of the current version (list order, keyset cursors)
    forgotten_at    timestamptz           -- a tombstone: hidden, restorable, purged after 30 days
);
CREATE INDEX memories_updated ON memories (updated_at DESC, id DESC);
CREATE INDEX memories_author ON memories (author);
CREATE INDEX memories_forgotten ON memories (forgotten_at) WHERE forgotten_at IS NOT NULL;

CREATE TABLE memory_versions (
    memory_id  text NOT NULL REFERENCES memories ON DELETE CASCADE,
    version    integer NOT NULL,
    supersedes integer,                   -- the version this one replaced; NULL for the first
    content    text NOT NULL,
    title      text,
    type       text NOT NULL,
    tags       text[] NOT NULL DEFAULT '{}',
    project    text,
    visibility text NOT NULL CHECK (visibility IN ('shared', 'private')),
    confidence real NOT NULL,
    expires_at timestamptz,
    source     text,
    author     text NOT NULL,             -- who wrote this version
    transport  text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (memory_id, version),
    FOREIGN KEY (memory_id, supersedes) REFERENCES memory_versions (memory_id, version)
);
CREATE INDEX memory_versions_type ON memory_versions (type);
CREATE INDEX memory_versions_project ON memory_versions (project);
CREATE INDEX memory_versions_tags ON memory_versions USING gin (tags);

CREATE TABLE memory_events (
    id        bigserial PRIMARY KEY,
    memory_id text NOT NULL REFERENCES memories ON DELETE CASCADE,
    kind      text NOT NULL CHECK (kind IN ('forget', 'restore')),
    by_client text NOT NULL,
    transport text NOT NULL,
    at        timestamptz NOT NULL
);
CREATE INDEX memory_events_memory ON memory_events (memory_id, at);

CREATE TABLE memory_chunks (
    id         bigserial PRIMARY KEY,
    memory_id  text NOT NULL,
    version    integer NOT NULL,
    ordinal    integer NOT NULL,
    text       text NOT NULL,
    context    text NOT NULL,
    char_start integer NOT NULL,
    char_end   integer NOT NULL,
    tsv        tsvector GENERATED ALWAYS AS (to_tsvector('english', context || ' ' || text)) STORED,
    UNIQUE (memory_id, version, ordinal),
    FOREIGN KEY (memory_id, version) REFERENCES memory_versions ON DELETE CASCADE
);
CREATE INDEX memory_chunks_tsv ON memory_chunks USING gin (tsv);

-- Which model made the vectors in memory_chunk_embeddings (checked against model_pin when memory opens).
CREATE TABLE memory_vector_model (
    id           integer PRIMARY KEY CHECK (id = 1),
    model_id     text NOT NULL,
    dim          integer NOT NULL,
    files_sha256 text NOT NULL
);

-- The narrow write path: a role that may read the model pin and write memory tables, and nothing else.
-- Created where the server lets us create roles (always on the embedded server); elsewhere the main user writes.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ltm_memory_writer') THEN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_user AND (rolcreaterole OR rolsuper)) THEN
            CREATE ROLE ltm_memory_writer LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE;
        END IF;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ltm_memory_writer') THEN
        EXECUTE format('GRANT CONNECT ON DATABASE %I TO ltm_memory_writer', current_database());
        GRANT USAGE ON SCHEMA public TO ltm_memory_writer;
        GRANT SELECT ON model_pin, schema_migrations, memory_vector_model TO ltm_memory_writer;
        GRANT SELECT, INSERT, UPDATE, DELETE ON memories, memory_versions, memory_events, memory_chunks
            TO ltm_memory_writer;
        GRANT USAGE, SELECT ON SEQUENCE memory_events_id_seq, memory_chunks_id_seq TO ltm_memory_writer;
    END IF;
END
$$;
