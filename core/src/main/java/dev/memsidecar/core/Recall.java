package dev.memsidecar.core;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Recall across profiles, for Search and BeginRun: embed the query once, search every profile the
 * caller may recall from ({@link AccessPolicy#readable}), merge by score ({@link
 * MemoryHit#BEST_FIRST}: every store scores on the one scale {@link ScoredRecord} states), keep the
 * best {@code topK}. Expects checked input. Thread-safe.
 */
public final class Recall {
  private final AccessPolicy access;
  private final Embedder embedder;
  private final Clock clock;

  public Recall(AccessPolicy access, Embedder embedder, Clock clock) {
    this.access = requireNonNull(access, "access is null");
    this.embedder = requireNonNull(embedder, "embedder is null");
    this.clock = requireNonNull(clock, "clock is null");
  }

  /**
   * Starts embedding {@code query} in the background, so a {@link #search} of it soon after (or
   * anything else embedding it) finds its vector made or being made.
   */
  public void prefetch(String query) {
    if (embedder instanceof RecentEmbeddings recent) {
      recent.prefetch(query);
    }
  }

  /**
   * The best {@code topK} memories for {@code query} in the profiles named (all readable ones when
   * empty). Stops between profiles when the caller has gone.
   */
  public List<MemoryHit> search(
      Scope scope,
      String query,
      List<String> profiles,
      int topK,
      Set<MemoryKind> kinds,
      List<String> tags,
      float minScore,
      RequestOptions options) {
    List<AccessPolicy.Target> targets = access.readable(scope, profiles, Access.RECALL, options);
    if (targets.isEmpty()) {
      return List.of();
    }
    SearchQuery q =
        new SearchQuery(query, embedder.embed(query), topK, kinds, tags, minScore, clock.instant());
    List<MemoryHit> hits = new ArrayList<>();
    for (AccessPolicy.Target t : targets) {
      options.checkNotCancelled();
      for (ScoredRecord hit : t.store().search(t.namespace(), q)) {
        hits.add(new MemoryHit(new StoredMemory(hit.record(), t.provider()), hit.score()));
      }
    }
    hits.sort(MemoryHit.BEST_FIRST);
    return List.copyOf(hits.subList(0, Math.min(topK, hits.size())));
  }
}
