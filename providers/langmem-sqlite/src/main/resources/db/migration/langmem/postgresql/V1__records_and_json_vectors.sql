-- langmem-sqlite version 1 on PostgreSQL: the records, and their vectors as JSON text, in the shape
-- of the H2 script of the same version (so that version 2, VectorsToBytes, runs on both alike).
-- Text is TEXT; the key columns sort by code point (COLLATE "C") whatever the database's locale, as
-- on H2 and in Java, which the keyset paging of ListMemories relies on.
CREATE TABLE IF NOT EXISTS memory_records (
  namespace VARCHAR(300) COLLATE "C" NOT NULL,
  id VARCHAR(64) COLLATE "C" NOT NULL,
  profile TEXT NOT NULL,
  kind VARCHAR(32) NOT NULL,
  scope TEXT NOT NULL,
  status VARCHAR(32) NOT NULL,
  content TEXT NOT NULL,
  summary TEXT NOT NULL,
  context TEXT NOT NULL,
  confidence REAL NOT NULL,
  tags_json TEXT NOT NULL,
  sensitivity TEXT NOT NULL,
  metadata_json TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  gate_score REAL NOT NULL,
  source_refs_json TEXT NOT NULL,
  validity VARCHAR(32) NOT NULL,
  expire_at BIGINT,
  PRIMARY KEY (namespace, id));

CREATE INDEX IF NOT EXISTS memory_records_by_created ON memory_records (namespace, created_at, id);

CREATE TABLE IF NOT EXISTS memory_vectors (
  namespace VARCHAR(300) COLLATE "C" NOT NULL,
  record_id VARCHAR(64) COLLATE "C" NOT NULL,
  dimensions INTEGER NOT NULL,
  embedding_json TEXT NOT NULL,
  PRIMARY KEY (namespace, record_id));
