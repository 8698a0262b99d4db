package dev.memsidecar.api;

import static java.util.Objects.requireNonNull;

import java.util.Comparator;

/**
 * A search hit.
 *
 * <h2>The score scale</h2>
 *
 * Every store scores on one scale, so the engine can merge hits of several profiles by score:
 * {@code 0..1}, higher is better: mostly how close the record is in meaning (the cosine of its
 * embedding and the query's, clamped at 0; weight 0.8 with a semantic embedder, 0.5 with {@code
 * hash}), the rest how well it holds the query's words (1 when it holds the query's keywords as
 * well as any record could), plus 0.05 when a query word names the record's speaker; capped at 1.
 * Scores order hits of one query; they are not probabilities, and their absolute values shift with
 * the embedder and the store.
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
