package dev.memsidecar.core;

import dev.memsidecar.api.ScoredRecord;
import java.util.Comparator;

/** A search hit: the memory and its relevance 0..1 (the scale {@link ScoredRecord} states). */
public record MemoryHit(StoredMemory memory, float score) {
  /** {@link ScoredRecord#BEST_FIRST}, for hits merged from several profiles. */
  public static final Comparator<MemoryHit> BEST_FIRST =
      Comparator.comparing(
          (MemoryHit h) -> new ScoredRecord(h.memory().record(), h.score()),
          ScoredRecord.BEST_FIRST);
}
