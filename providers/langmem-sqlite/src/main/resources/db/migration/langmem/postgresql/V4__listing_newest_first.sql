-- langmem-sqlite version 4 on PostgreSQL: the listing index in listing order (newest first), as in
-- the H2 script of the same version; the ascending index of versions 1-3 goes.
CREATE INDEX IF NOT EXISTS memory_records_by_created_desc
  ON memory_records (namespace, created_at DESC, id DESC);

DROP INDEX IF EXISTS memory_records_by_created;
