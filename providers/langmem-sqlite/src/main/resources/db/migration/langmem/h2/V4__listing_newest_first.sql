-- langmem-sqlite version 4: the listing index in listing order (newest first), so a page of
-- ListMemories is read from the index in order instead of sorting the namespace; the ascending
-- index of versions 1-3 goes.
CREATE INDEX IF NOT EXISTS memory_records_by_created_desc
  ON memory_records (namespace, created_at DESC, id DESC);

DROP INDEX IF EXISTS memory_records_by_created;
