-- langmem-sqlite version 3: the embedder's name with each vector (NULL in the rows it had: which
-- embedder made them is not known) and the table naming the embedder of every vector. The store
-- embeds those vectors again, in batches, when it opens (Reembedding).
ALTER TABLE memory_vectors ADD COLUMN IF NOT EXISTS embedder VARCHAR(64);

CREATE TABLE IF NOT EXISTS langmem_embedder (
  id INTEGER NOT NULL PRIMARY KEY,
  name VARCHAR(64) NOT NULL,
  dimensions INTEGER NOT NULL);
