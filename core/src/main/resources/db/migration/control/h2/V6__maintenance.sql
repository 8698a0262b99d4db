-- Control store version 6 (issue 18, maintenance): the last run of each maintenance target, and an
-- index of the write-decision audit by time for its pruning by age. IF NOT EXISTS: H2 commits each
-- DDL statement on its own, so a start-up cut short may have left some of these behind.
CREATE TABLE IF NOT EXISTS maintenance_runs (
  target CHARACTER VARYING NOT NULL PRIMARY KEY,
  ok BOOLEAN NOT NULL,
  started_at BIGINT NOT NULL,
  ended_at BIGINT NOT NULL,
  run_json CHARACTER VARYING NOT NULL);

CREATE INDEX IF NOT EXISTS write_decisions_by_time ON write_decisions (decided_at);
