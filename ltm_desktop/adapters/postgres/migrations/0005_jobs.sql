-- The always-on worker: watched folders, a durable job queue (one row per path), the workers that share it,
-- a shared pause switch, and the git state each document was ingested at.
-- Every change to jobs, folders or the switch sends NOTIFY ltm_jobs, so idle workers wake and the tray refreshes.

CREATE TABLE watched_folders (
    path       text PRIMARY KEY,
    ignore     text[] NOT NULL DEFAULT '{}',
    state      text NOT NULL DEFAULT 'new' CHECK (state IN ('new', 'ok', 'missing')),
    reason     text,
    added_at   timestamptz NOT NULL DEFAULT now(),
    scanned_at timestamptz
);

-- One row per path: enqueueing a path that already has a row re-arms it, so a backlog can never hold the
-- same file twice, and the row left behind is the file's state (done, or failed with its reason).
CREATE TABLE ingest_jobs (
    id          bigserial PRIMARY KEY,
    path        text NOT NULL UNIQUE,
    root        text NOT NULL,
    kind        text NOT NULL CHECK (kind IN ('upsert', 'delete', 'move')),
    src_path    text,
    priority    integer NOT NULL DEFAULT 0,
    state       text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed')),
    generation  integer NOT NULL DEFAULT 1,
    attempts    integer NOT NULL DEFAULT 0,
    not_before  timestamptz NOT NULL DEFAULT now(),
    worker      text,
    lease_until timestamptz,
    error       text,
    outcome     text,
    pages       integer,
    size        bigint,
    mtime       double precision,
    enqueued_at timestamptz NOT NULL DEFAULT now(),
    started_at  timestamptz,
    finished_at timestamptz
);
CREATE INDEX ingest_jobs_claim ON ingest_jobs (priority DESC, id) WHERE state IN ('queued', 'running');
CREATE INDEX ingest_jobs_finished ON ingest_jobs (finished_at) WHERE state = 'done';

CREATE TABLE ingest_workers (
    id           text PRIMARY KEY,
    host         text NOT NULL,
    pid          integer NOT NULL,
    started_at   timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE worker_control (
    id         integer PRIMARY KEY CHECK (id = 1),
    paused     boolean NOT NULL DEFAULT false,
    changed_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO worker_control (id, paused) VALUES (1, false);

ALTER TABLE documents ADD COLUMN git_commit text, ADD COLUMN git_dirty boolean;

-- Row-level, so lease renewals (which change nothing a watcher cares about) stay silent; Postgres folds
-- identical notifications within one transaction into one, so a batch of 1,000 rows still sends one.
CREATE FUNCTION ltm_notify_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('ltm_jobs', TG_TABLE_NAME);
    RETURN NULL;
END
$$;
CREATE TRIGGER ingest_jobs_notify_insert AFTER INSERT OR DELETE ON ingest_jobs
    FOR EACH ROW EXECUTE FUNCTION ltm_notify_jobs();
CREATE TRIGGER ingest_jobs_notify_update AFTER UPDATE ON ingest_jobs
    FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state OR OLD.generation IS DISTINCT FROM NEW.generation)
    EXECUTE FUNCTION ltm_notify_jobs();
CREATE TRIGGER watched_folders_notify AFTER INSERT OR UPDATE OR DELETE ON watched_folders
    FOR EACH STATEMENT EXECUTE FUNCTION ltm_notify_jobs();
CREATE TRIGGER worker_control_notify AFTER UPDATE ON worker_control
    FOR EACH STATEMENT EXECUTE FUNCTION ltm_notify_jobs();
