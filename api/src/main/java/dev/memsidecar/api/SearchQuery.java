package dev.memsidecar.api;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * A recall request to {@link MemoryStore#search}. Only records that are {@link
 * MemoryRecord#isRecallable(Instant) recallable} at {@code now}, of one of {@code kinds} (all when
 * empty) and carrying every one of {@code tags} are candidates.
 *
 * @param text the query in the user's words
 * @param vector the query embedded with the store's {@link Embedder}, or {@code null} to let the
 *     store embed {@code text} itself
 * @param topK 1..1000 hits at most
 * @param kinds kinds to keep; empty keeps all
 * @param tags tags that must all be present
 * @param minScore hits scoring below this are dropped (scores are 0..1)
 * @param now the instant against which expiry is judged
 */
public record SearchQuery(
    String text,
    float[] vector,
    int topK,
    Set<MemoryKind> kinds,
    List<String> tags,
    float minScore,
    Instant now) {

  public SearchQuery {
    requireNonNull(text, "text is null");
    if (topK < 1 || topK > 1000) {
      throw MemoryException.invalidArgument("top_k", "top_k must be 1..1000: " + topK);
    }
    kinds = kinds == null ? Set.of() : Set.copyOf(kinds);
    tags = tags == null ? List.of() : List.copyOf(tags);
    requireNonNull(now, "now is null");
  }

  /**
   * The query's unit vector for {@code embedder}: {@link #vector()} normalised, or {@link #text()}
   * embedded when no vector was given.
   *
   * @throws MemoryException INVALID_ARGUMENT if the given vector's length is not the embedder's, or
   *     it holds a NaN or infinity
   */
  public float[] unitVector(Embedder embedder) {
    if (vector == null) {
      return embedder.embed(text);
    }
    if (vector.length != embedder.dimensions()) {
      throw MemoryException.invalidArgument(
          "vector",
          "query vector has "
              + vector.length
              + " dimensions; embedder '"
              + embedder.name()
              + "' makes "
              + embedder.dimensions());
    }
    try {
      return Embedder.unit(vector);
    } catch (IllegalArgumentException e) {
      throw MemoryException.invalidArgument("vector", "query " + e.getMessage());
    }
  }

  /** Whether {@code record} passes this query's filters (status, expiry, kinds, tags). */
  public boolean admits(MemoryRecord record) {
    return record.isRecallable(now)
        && (kinds.isEmpty() || kinds.contains(record.kind()))
        && record.tags().containsAll(tags);
  }
}
