package dev.memsidecar.api;

import static java.util.Objects.requireNonNull;

import java.util.Comparator;

/**
 * A search hit.
 *
 * <h2>The score scale</h2>
 *
 * Every store scores on one scale, so the engine can merge hits of several profiles by score:
 * {@code 0..1}, higher is better, where half the score says how close the record is in meaning (the
 * cosine of its embedding and the query's, clamped at 0) and half how well it holds the query's
 * words (1 when it holds the query's keywords as well as any record could). A record scoring 1
 * points the same way as the query and holds every one of its words; 0.5 is reached by an exact
 * word match with unrelated embeddings, or the reverse. Scores order hits of one query; they are
 * not probabilities, and their absolute values shift with the embedder and the store.
 *
 * @param record the record
 * @param score relevance 0..1, higher is better
 */
public record ScoredRecord(MemoryRecord record, float score) {
  /**
   * The order of search results: higher score first, then the newer update time, then the smaller
   * id, so equal scores come back the same way every time.
   */
  public static final Comparator<ScoredRecord> BEST_FIRST =
      Comparator.comparingDouble((ScoredRecord s) -> s.score())
          .reversed()
          .thenComparing(s -> s.record().updateTime(), Comparator.reverseOrder())
          .thenComparing(s -> s.record().id());

  public ScoredRecord {
    requireNonNull(record, "record is null");
  }
}
