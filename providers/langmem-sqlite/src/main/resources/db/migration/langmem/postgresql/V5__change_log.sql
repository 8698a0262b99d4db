-- langmem-sqlite version 5 on PostgreSQL: the change log through which several sidecars on one
-- database keep their in-memory search indexes fresh. Every transaction that puts or deletes a
-- record, or writes its vector, adds one row per record it changed (after taking that record's row
-- lock, so that one record's rows are numbered in commit order) and sends pg_notify on the
-- channel of the tables' schema. Listeners read the rows after the last seq they saw; rows older
-- than ten minutes are deleted by the stores themselves (ChangeFeed.RETENTION).
CREATE TABLE IF NOT EXISTS memory_changes (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  namespace VARCHAR(300) COLLATE "C" NOT NULL,
  record_id VARCHAR(64) COLLATE "C" NOT NULL,
  changed_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT clock_timestamp());

-- The newest change of each record of a namespace, read when a namespace's index loads.
CREATE INDEX IF NOT EXISTS memory_changes_by_record ON memory_changes (namespace, record_id, seq);
