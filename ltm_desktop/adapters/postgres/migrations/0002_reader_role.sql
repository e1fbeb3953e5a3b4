-- A role that can only read: the search path (MCP server, `ltm search`) connects as it where the server
-- lets us create roles (always on the embedded server). Writes through it fail by construction.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ltm_reader') THEN
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_user AND (rolcreaterole OR rolsuper)) THEN
            CREATE ROLE ltm_reader LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE;
        END IF;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ltm_reader') THEN
        EXECUTE format('GRANT CONNECT ON DATABASE %I TO ltm_reader', current_database());
        GRANT USAGE ON SCHEMA public TO ltm_reader;
        GRANT SELECT ON ALL TABLES IN SCHEMA public TO ltm_reader;
        ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO ltm_reader;
        ALTER ROLE ltm_reader SET default_transaction_read_only = on;
    END IF;
END
$$;
