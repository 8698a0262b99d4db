package dev.memsidecar.api;

import static java.util.Objects.requireNonNull;

/**
 * A search hit.
 *
 * @param record the record
 * @param score relevance 0..1, higher is better; comparable across stores only roughly
 */
public record ScoredRecord(MemoryRecord record, float score) {
  public ScoredRecord {
    requireNonNull(record, "record is null");
  }
}
