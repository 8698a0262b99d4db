-- langmem-sqlite version 1: the records, and their vectors as JSON text. The DDL of the release
-- that introduced them, with IF NOT EXISTS: H2 commits each DDL statement on its own, so a start-up
-- cut short may have left some of these behind, in this shape or a later one (the migrations
-- after this one bring either forward).
CREATE TABLE IF NOT EXISTS memory_records (
  namespace VARCHAR(300) NOT NULL,
  id VARCHAR(64) NOT NULL,
  profile CHARACTER VARYING NOT NULL,
  kind VARCHAR(32) NOT NULL,
  scope CHARACTER VARYING NOT NULL,
  status VARCHAR(32) NOT NULL,
  content CHARACTER VARYING NOT NULL,
  summary CHARACTER VARYING NOT NULL,
  context CHARACTER VARYING NOT NULL,
  confidence REAL NOT NULL,
  tags_json CHARACTER VARYING NOT NULL,
  sensitivity CHARACTER VARYING NOT NULL,
  metadata_json CHARACTER VARYING NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  gate_score REAL NOT NULL,
  source_refs_json CHARACTER VARYING NOT NULL,
  validity VARCHAR(32) NOT NULL,
  expire_at BIGINT,
  PRIMARY KEY (namespace, id));

CREATE INDEX IF NOT EXISTS memory_records_by_created ON memory_records (namespace, created_at, id);

CREATE TABLE IF NOT EXISTS memory_vectors (
  namespace VARCHAR(300) NOT NULL,
  record_id VARCHAR(64) NOT NULL,
  dimensions INTEGER NOT NULL,
  embedding_json CHARACTER VARYING NOT NULL,
  PRIMARY KEY (namespace, record_id));
