-- The PostgreSQL form of h2/V6__maintenance.sql: text is TEXT COLLATE "C" (compared and ordered by
-- code point, as on H2 and in Java, whatever the database's locale), bytes are BYTEA.
-- Control store version 6 (issue 18, maintenance): the last run of each maintenance target, and an
-- index of the write-decision audit by time for its pruning by age. IF NOT EXISTS: H2 commits each
-- DDL statement on its own, so a start-up cut short may have left some of these behind.
CREATE TABLE IF NOT EXISTS maintenance_runs (
  target TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  ok BOOLEAN NOT NULL,
  started_at BIGINT NOT NULL,
  ended_at BIGINT NOT NULL,
  run_json TEXT COLLATE "C" NOT NULL);

CREATE INDEX IF NOT EXISTS write_decisions_by_time ON write_decisions (decided_at);
