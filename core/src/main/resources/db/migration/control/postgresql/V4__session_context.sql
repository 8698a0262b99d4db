-- The PostgreSQL form of h2/V4__session_context.sql: text is TEXT COLLATE "C" (compared and ordered by
-- code point, as on H2 and in Java, whatever the database's locale), bytes are BYTEA.
-- Control store version 4: a visible message is also indexed by the terms of its context (the
-- visible message before it in its session), which BM25F counts half. Messages indexed before
-- this version keep their terms and have no context terms: they are found by their own words, as
-- before.
ALTER TABLE session_messages ADD COLUMN IF NOT EXISTS context_count INTEGER NOT NULL DEFAULT 0;

ALTER TABLE session_terms ADD COLUMN IF NOT EXISTS context_tf INTEGER NOT NULL DEFAULT 0;

ALTER TABLE session_terms ADD COLUMN IF NOT EXISTS context_count INTEGER NOT NULL DEFAULT 0;

ALTER TABLE session_stats ADD COLUMN IF NOT EXISTS context_terms BIGINT NOT NULL DEFAULT 0;
