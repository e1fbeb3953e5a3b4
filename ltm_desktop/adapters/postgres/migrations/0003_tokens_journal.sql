-- Bearer tokens for the HTTP MCP server (stored as sha256, never in clear) and the journal of tool calls.
CREATE TABLE api_tokens (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name         text NOT NULL CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'),
    token_sha256 text NOT NULL UNIQUE CHECK (token_sha256 ~ '^[0-9a-f]{64}$'),
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);
-- One live token per client name; revoked rows stay for the record and free the name.
CREATE UNIQUE INDEX api_tokens_live_name ON api_tokens (name) WHERE revoked_at IS NULL;

CREATE TABLE tool_journal (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    tool        text NOT NULL,
    client      text NOT NULL,
    transport   text NOT NULL,
    duration_ms real NOT NULL,
    ok          boolean NOT NULL,
    error       text,
    query       text
);
CREATE INDEX tool_journal_at ON tool_journal (at);

-- The MCP server's only write path: it may mark a token used and append to (and prune) the journal,
-- nothing else. Created where the server lets us create roles (always on the embedded server);
-- elsewhere the server falls back to the database's own user.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ltm_journal') THEN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_user AND (rolcreaterole OR rolsuper)) THEN
            CREATE ROLE ltm_journal LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE;
        END IF;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ltm_journal') THEN
        EXECUTE format('GRANT CONNECT ON DATABASE %I TO ltm_journal', current_database());
        GRANT USAGE ON SCHEMA public TO ltm_journal;
        GRANT SELECT, UPDATE (last_used_at) ON api_tokens TO ltm_journal;
        GRANT SELECT, INSERT, DELETE ON tool_journal TO ltm_journal;
    END IF;
END
$$;
