package dev.memsidecar.provider.deepagents;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.toolkit.Terms;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * The search index of one version of a memory file: each ACTIVE record with its embedding and its
 * keywords. Immutable once built, so searches share it without locks.
 *
 * <h2>Ranking</h2>
 *
 * The same as the {@code langmem-sqlite} provider's. For a query with text {@code T} and unit
 * vector {@code q} each record {@code r} gets:
 *
 * <ul>
 *   <li><b>vector score</b> {@code v = max(0, cos(q, e(r)))}, where {@code e(r)} embeds {@code
 *       content + "\n" + context} with the store's {@link Embedder};
 *   <li><b>keyword score</b> {@code k = Σ idf(t) over the distinct query keywords t that r holds /
 *       Σ idf(t) over all distinct query keywords}, with the query keywords {@link
 *       Terms#keywords}{@code (T)}, the record's keywords those of its content, context and tags,
 *       and {@code idf(t) = ln(1 + N / (1 + df(t)))} for {@code N} ACTIVE records of which {@code
 *       df(t)} hold {@code t};
 *   <li><b>score</b> {@code = 0.5 v + 0.5 k}, clamped to 0..1; {@code v} alone when the query has
 *       no keywords.
 * </ul>
 *
 * Hits are the records the query {@link SearchQuery#admits admits} scoring at least {@link
 * SearchQuery#minScore()}, best {@link SearchQuery#topK()} first, ties to the newer update time,
 * then the smaller id.
 *
 * <h2>Cost</h2>
 *
 * Building embeds only records whose content or context changed since the {@code previous} index
 * handed in (a file re-read after a person's edit re-embeds just the edited entries). A search is
 * {@code O(N (d + |Q|))}.
 */
final class SearchIndex {
  static final Comparator<ScoredRecord> BEST_FIRST =
      Comparator.comparingDouble((ScoredRecord s) -> s.score())
          .reversed()
          .thenComparing(s -> s.record().updateTime(), Comparator.reverseOrder())
          .thenComparing(s -> s.record().id());

  /** What is indexed of one record, reusable while its content, context and tags stay the same. */
  record Indexed(
      String content, String context, List<String> tags, float[] vector, Set<String> keywords) {

    boolean sameTextAs(MemoryRecord r) {
      return content.equals(r.content()) && context.equals(r.context());
    }
  }

  static final SearchIndex EMPTY = new SearchIndex(List.of(), List.of(), Map.of(), Map.of());

  private final List<MemoryRecord> records;
  private final List<Indexed> indexed;
  private final Map<String, Integer> documentFrequency;
  private final Map<String, Indexed> byId;

  private SearchIndex(
      List<MemoryRecord> records,
      List<Indexed> indexed,
      Map<String, Integer> documentFrequency,
      Map<String, Indexed> byId) {
    this.records = records;
    this.indexed = indexed;
    this.documentFrequency = documentFrequency;
    this.byId = byId;
  }

  /**
   * Indexes the ACTIVE ones of {@code all}.
   *
   * @param previous what an earlier index of the same file held, by record id; may be empty
   */
  static SearchIndex build(
      Collection<MemoryRecord> all, Map<String, Indexed> previous, Embedder embedder) {
    List<MemoryRecord> records = new ArrayList<>();
    List<Indexed> indexed = new ArrayList<>();
    Map<String, Integer> df = new HashMap<>();
    Map<String, Indexed> byId = new HashMap<>();
    for (MemoryRecord r : all) {
      if (r.status() != MemoryStatus.ACTIVE) {
        continue;
      }
      Indexed old = previous.get(r.id());
      Indexed x;
      if (old != null && old.sameTextAs(r) && old.tags().equals(r.tags())) {
        x = old;
      } else {
        float[] vector =
            old != null && old.sameTextAs(r) ? old.vector() : embedder.embed(r.indexedText());
        x = new Indexed(r.content(), r.context(), r.tags(), vector, keywordsOf(r));
      }
      records.add(r);
      indexed.add(x);
      byId.put(r.id(), x);
      for (String t : x.keywords()) {
        df.merge(t, 1, Integer::sum);
      }
    }
    return new SearchIndex(List.copyOf(records), List.copyOf(indexed), df, byId);
  }

  /** What this index holds by record id, for building the next one. */
  Map<String, Indexed> byId() {
    return byId;
  }


  /** The keywords of a record's content, context and tags. */
  static Set<String> keywordsOf(MemoryRecord r) {
    Set<String> out = new HashSet<>(Terms.keywords(r.content()));
    out.addAll(Terms.keywords(r.context()));
    for (String tag : r.tags()) {
      out.addAll(Terms.keywords(tag));
    }
    return Set.copyOf(out);
  }

  /** The best matches of {@code query}; {@code queryVector} is a unit vector of the embedder. */
  List<ScoredRecord> search(SearchQuery query, float[] queryVector) {
    String[] terms = new LinkedHashSet<>(Terms.keywords(query.text())).toArray(String[]::new);
    int n = records.size();
    double[] idf = new double[terms.length];
    double idfTotal = 0;
    for (int i = 0; i < terms.length; i++) {
      int df = documentFrequency.getOrDefault(terms[i], 0);
      idf[i] = Math.log(1.0 + n / (1.0 + df));
      idfTotal += idf[i];
    }
    int topK = query.topK();
    PriorityQueue<ScoredRecord> kept = new PriorityQueue<>(topK + 1, BEST_FIRST.reversed());
    for (int slot = 0; slot < n; slot++) {
      MemoryRecord record = records.get(slot);
      if (!query.admits(record)) {
        continue;
      }
      Indexed x = indexed.get(slot);
      double score = Math.max(0.0, Embedder.cosine(queryVector, x.vector()));
      if (idfTotal > 0) {
        double matched = 0;
        for (int i = 0; i < terms.length; i++) {
          if (x.keywords().contains(terms[i])) {
            matched += idf[i];
          }
        }
        score = 0.5 * score + 0.5 * (matched / idfTotal);
      }
      float clamped = (float) Math.min(1.0, Math.max(0.0, score));
      if (clamped < query.minScore()) {
        continue;
      }
      ScoredRecord hit = new ScoredRecord(record, clamped);
      if (kept.size() < topK) {
        kept.add(hit);
      } else if (BEST_FIRST.compare(hit, kept.peek()) < 0) {
        kept.poll();
        kept.add(hit);
      }
    }
    List<ScoredRecord> out = new ArrayList<>(kept);
    out.sort(BEST_FIRST);
    return List.copyOf(out);
  }
}
