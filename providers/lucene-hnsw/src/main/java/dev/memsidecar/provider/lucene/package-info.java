/**
 * The {@code lucene-hnsw} memory provider: one Lucene index per profile, BM25 and HNSW vectors
 * searched together, group-committed durable writes. Start at {@link
 * dev.memsidecar.provider.lucene.LuceneHnswProvider}.
 */
package dev.memsidecar.provider.lucene;
