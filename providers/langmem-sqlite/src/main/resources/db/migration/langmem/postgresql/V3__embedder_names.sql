-- langmem-sqlite version 3 on PostgreSQL: the embedder's name with each vector and the table naming
-- the embedder of every vector, as in the H2 script of the same version.
ALTER TABLE memory_vectors ADD COLUMN IF NOT EXISTS embedder VARCHAR(64);

CREATE TABLE IF NOT EXISTS langmem_embedder (
  id INTEGER NOT NULL PRIMARY KEY,
  name VARCHAR(64) NOT NULL,
  dimensions INTEGER NOT NULL);
