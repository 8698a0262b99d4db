-- langmem-sqlite version 5: the change log of the PostgreSQL script of the same version, so that
-- both databases have the same tables. On H2 it stays empty: one process opens an H2 file, so no
-- other store has an index to keep fresh.
CREATE TABLE IF NOT EXISTS memory_changes (
  seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  namespace VARCHAR(300) NOT NULL,
  record_id VARCHAR(64) NOT NULL,
  changed_at TIMESTAMP WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP NOT NULL);

CREATE INDEX IF NOT EXISTS memory_changes_by_record ON memory_changes (namespace, record_id, seq);
