package dev.memsidecar.provider.lucene;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.toolkit.HybridScore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.CombinedFieldQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.VectorUtil;

/**
 * The hybrid search of a {@link RecordIndex}: BM25 over analysed text and HNSW over embeddings,
 * fused into one score.
 *
 * <p><b>Candidates.</b> Two ranked lists over the same recall filter ({@link #recallFilter}:
 * namespace, ACTIVE, not expired at {@link SearchQuery#now()}, kinds, tags), each applied
 * <i>inside</i> its query, so a namespace of five records among millions still gets its five: a
 * {@link KnnFloatVectorQuery} with the filter (Lucene searches the HNSW graph accepting only
 * filtered documents, or scans them exactly when they are few) and a BM25F disjunction of the
 * query's analysed terms with the filter as a FILTER clause: per term a {@link CombinedFieldQuery}
 * over {@value RecordDocument#TEXT} (content, summary, tags) and {@value RecordDocument#CONTEXT}, a
 * word of the context counting {@link HybridScore#CONTEXT_WEIGHT} of one of the content. The kNN
 * list is {@code max(2 topK, hnsw.ef_search)} deep (also its candidate-queue size, ef), the BM25
 * list {@value #BM25_DEPTH_FACTOR} times that, each at most {@value #MAX_DEPTH}. The query vector
 * is {@link SearchQuery#vector()} made unit, or the embedding of its text; a list is <i>active</i>
 * when it can run: kNN with a non-zero query vector, BM25 with at least one term after analysis.
 *
 * <p><b>Scores.</b> Every hit scores in 0..1. Per candidate, {@code v = max(0, cos(query vector,
 * record vector))} (computed exactly, from the stored vector, also for candidates only BM25 found;
 * 0 for a record without a vector, whose text embedded to zeros), {@code b = its BM25F score / the
 * best BM25F score of this query among the records the filter admits} (0 when BM25 did not find
 * it), and {@code s = 1} when one of the query's terms is a term of the record's speaker label
 * ({@value RecordDocument#SPEAKER}, {@link dev.memsidecar.language.Terms#speaker}). With {@link
 * Fusion#BLEND}, the default, they make the one hybrid score of every ranking store, {@link
 * HybridScore}; with {@link Fusion#RRF} the score is rank-based instead ({@link Fusion#RRF} says
 * how; 1 means first in every active list).
 *
 * <p><b>Results.</b> Hits below {@link SearchQuery#minScore()} drop, and the best {@code topK} come
 * back in {@link ScoredRecord#BEST_FIRST} order. A query with no active list has no ranking signal:
 * it returns the newest-updated admitted records, each scored 0.
 *
 * <p>Thread-safe: it keeps no state between searches.
 */
final class HybridSearcher {
  /** The BM25F weight of context (CombinedFieldQuery weights are at least 1). */
  static final float CONTEXT_FIELD_WEIGHT = 1f;

  /**
   * The BM25F weight of content, summary and tags: a context word weighs {@link
   * HybridScore#CONTEXT_WEIGHT} of one.
   */
  static final float CONTENT_FIELD_WEIGHT =
      (float) (CONTEXT_FIELD_WEIGHT / HybridScore.CONTEXT_WEIGHT);

  /**
   * How many times deeper than the kNN list the BM25 list goes: its extra candidates cost only an
   * exact dot product each, and they let word and speaker matches that the embedding ranks low
   * compete (on LoCoMo, multi-hop R@10 +0.008).
   */
  static final int BM25_DEPTH_FACTOR = 3;

  /** The deepest either ranked list goes. */
  static final int MAX_DEPTH = 10_000;

  private static final Sort RECENT_ORDER =
      new Sort(
          new SortField(RecordDocument.UPDATED, SortField.Type.LONG, true),
          new SortField(RecordDocument.ID, SortField.Type.STRING, false));

  private final SearcherManager searchers;
  private final MemoryTextAnalyzer analyzer;
  private final Embedder embedder;
  private final String vectorField;
  private final int efSearch;
  private final Fusion fusion;
  private final double vectorWeight;

  /**
   * @param searchers the searchers of the index to search
   * @param analyzer analyses query text as the index analysed record text
   * @param embedder embeds query text, the embedder of the index's vectors
   * @param efSearch the least depth of each ranked list, 1..{@value #MAX_DEPTH}
   */
  HybridSearcher(
      SearcherManager searchers,
      MemoryTextAnalyzer analyzer,
      Embedder embedder,
      int efSearch,
      Fusion fusion) {
    this.searchers = requireNonNull(searchers, "searchers is null");
    this.analyzer = requireNonNull(analyzer, "analyzer is null");
    this.embedder = requireNonNull(embedder, "embedder is null");
    this.vectorField = RecordDocument.vectorField(embedder.dimensions());
    this.efSearch = efSearch;
    this.fusion = requireNonNull(fusion, "fusion is null");
    this.vectorWeight = HybridScore.meaningWeightFor(embedder.name());
  }

  /** The hits of {@code query} in {@code namespace}, best first. */
  List<ScoredRecord> search(Namespace namespace, SearchQuery query) throws IOException {
    float[] vector =
        query.vector() == null
            ? RecordDocument.embed(embedder, query.text())
            : RecordDocument.unitOrNull(query.unitVector(embedder));
    List<String> terms = analyzer.distinctTerms(RecordDocument.TEXT, query.text());
    IndexSearcher s = searchers.acquire();
    try {
      Query filter = recallFilter(namespace, query);
      if (vector == null && terms.isEmpty()) {
        return recent(s, filter, query);
      }
      return fused(s, filter, query, vector, terms);
    } finally {
      searchers.release(s);
    }
  }

  /** One candidate of a hybrid search: its ranks and normalised scores in both lists. */
  private static final class Candidate {
    final int doc;
    int knnRank;
    int bm25Rank;
    float vector = Float.NaN;
    float bm25;
    boolean speaker;
    float score;

    Candidate(int doc) {
      this.doc = doc;
    }
  }

  private List<ScoredRecord> fused(
      IndexSearcher s, Query filter, SearchQuery query, float[] vector, List<String> terms)
      throws IOException {
    int depth = Math.min(MAX_DEPTH, Math.max(2 * query.topK(), efSearch));
    boolean knnActive = vector != null;
    boolean bm25Active = !terms.isEmpty();
    Map<Integer, Candidate> candidates = new HashMap<>();
    if (knnActive) {
      ScoreDoc[] hits =
          s.search(new KnnFloatVectorQuery(vectorField, vector, depth, filter), depth).scoreDocs;
      int[] ranks = ranks(hits);
      for (int i = 0; i < hits.length; i++) {
        Candidate c = candidates.computeIfAbsent(hits[i].doc, Candidate::new);
        c.knnRank = ranks[i];
        // Lucene scores DOT_PRODUCT as (1 + cos) / 2.
        c.vector = clamp(2 * hits[i].score - 1);
      }
    }
    if (bm25Active) {
      BooleanQuery.Builder b = new BooleanQuery.Builder();
      for (String t : terms) {
        b.add(
            new CombinedFieldQuery.Builder(t)
                .addField(RecordDocument.TEXT, CONTENT_FIELD_WEIGHT)
                .addField(RecordDocument.CONTEXT, CONTEXT_FIELD_WEIGHT)
                .build(),
            Occur.SHOULD);
      }
      b.setMinimumNumberShouldMatch(1);
      b.add(filter, Occur.FILTER);
      ScoreDoc[] hits =
          s.search(b.build(), Math.min(MAX_DEPTH, BM25_DEPTH_FACTOR * depth)).scoreDocs;
      float best = hits.length == 0 ? 0f : hits[0].score;
      int[] ranks = ranks(hits);
      for (int i = 0; i < hits.length; i++) {
        Candidate c = candidates.computeIfAbsent(hits[i].doc, Candidate::new);
        c.bm25Rank = ranks[i];
        c.bm25 = best > 0 ? clamp(hits[i].score / best) : 0f;
      }
    }
    if (knnActive) {
      fillVectorScores(s, candidates, vector);
    }
    if (bm25Active) {
      markSpeakers(s, candidates, terms);
    }
    List<Candidate> ranked = new ArrayList<>(candidates.size());
    for (Candidate c : candidates.values()) {
      float v = Float.isNaN(c.vector) ? 0f : c.vector;
      c.score =
          fusion.score(
              vectorWeight, knnActive, bm25Active, c.knnRank, c.bm25Rank, v, c.bm25, c.speaker);
      if (c.score >= query.minScore()) {
        ranked.add(c);
      }
    }
    ranked.sort((x, y) -> Float.compare(y.score, x.score));
    // Records are read only for the top topK and whatever ties the last of them.
    int n = Math.min(query.topK(), ranked.size());
    while (n < ranked.size() && n > 0 && ranked.get(n).score == ranked.get(n - 1).score) {
      n++;
    }
    StoredFields fields = s.storedFields();
    List<ScoredRecord> out = new ArrayList<>(n);
    for (Candidate c : ranked.subList(0, n)) {
      MemoryRecord r = RecordDocument.read(fields, c.doc);
      if (query.admits(r)) { // the filter already ensured it; a cheap guard all the same
        out.add(new ScoredRecord(r, c.score));
      }
    }
    out.sort(ScoredRecord.BEST_FIRST);
    return List.copyOf(out.subList(0, Math.min(query.topK(), out.size())));
  }

  /**
   * The 1-based rank of each hit (in score order): 1 + the hits scoring strictly higher, so equal
   * scores share a rank and fusion keeps their tie (for the update time and id to break).
   */
  private static int[] ranks(ScoreDoc[] hits) {
    int[] ranks = new int[hits.length];
    for (int i = 0; i < hits.length; i++) {
      ranks[i] = i > 0 && hits[i].score == hits[i - 1].score ? ranks[i - 1] : i + 1;
    }
    return ranks;
  }

  /** The exact vector similarity of candidates only BM25 found. */
  private void fillVectorScores(IndexSearcher s, Map<Integer, Candidate> candidates, float[] q)
      throws IOException {
    int[] docs =
        candidates.values().stream()
            .filter(c -> Float.isNaN(c.vector))
            .mapToInt(c -> c.doc)
            .sorted()
            .toArray();
    List<LeafReaderContext> leaves = s.getIndexReader().leaves();
    LeafReaderContext leaf = null;
    FloatVectorValues values = null;
    KnnVectorValues.DocIndexIterator it = null;
    for (int doc : docs) {
      Candidate c = candidates.get(doc);
      c.vector = 0f; // no vector: the record had nothing to embed
      LeafReaderContext l = leaves.get(ReaderUtil.subIndex(doc, leaves));
      if (l != leaf) {
        leaf = l;
        values = l.reader().getFloatVectorValues(vectorField);
        it = values == null ? null : values.iterator();
      }
      if (it == null) {
        continue;
      }
      int target = doc - l.docBase;
      if (it.docID() < target) {
        it.advance(target);
      }
      if (it.docID() == target) {
        c.vector = clamp(VectorUtil.dotProduct(q, values.vectorValue(it.index())));
      }
    }
  }

  /** Marks the candidates whose speaker label holds one of the query's {@code terms}. */
  private static void markSpeakers(
      IndexSearcher s, Map<Integer, Candidate> candidates, List<String> terms) throws IOException {
    int[] docs = candidates.keySet().stream().mapToInt(Integer::intValue).sorted().toArray();
    List<LeafReaderContext> leaves = s.getIndexReader().leaves();
    int from = 0;
    while (from < docs.length) {
      LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(docs[from], leaves));
      int end = leaf.docBase + leaf.reader().maxDoc();
      int to = from;
      while (to < docs.length && docs[to] < end) {
        to++;
      }
      Terms speakers = leaf.reader().terms(RecordDocument.SPEAKER);
      if (speakers != null) {
        TermsEnum te = speakers.iterator();
        for (String t : terms) {
          if (!te.seekExact(new BytesRef(t))) {
            continue;
          }
          PostingsEnum postings = te.postings(null, PostingsEnum.NONE);
          for (int i = from; i < to; i++) {
            int target = docs[i] - leaf.docBase;
            int at = postings.docID() < target ? postings.advance(target) : postings.docID();
            if (at == DocIdSetIterator.NO_MORE_DOCS) {
              break;
            }
            if (at == target) {
              candidates.get(docs[i]).speaker = true;
            }
          }
        }
      }
      from = to;
    }
  }

  /** No ranking signal: the newest-updated admitted records, scored 0. */
  private static List<ScoredRecord> recent(IndexSearcher s, Query filter, SearchQuery query)
      throws IOException {
    if (query.minScore() > 0) {
      return List.of();
    }
    ScoreDoc[] hits =
        s.search(new ConstantScoreQuery(filter), query.topK(), RECENT_ORDER).scoreDocs;
    StoredFields fields = s.storedFields();
    List<ScoredRecord> out = new ArrayList<>(hits.length);
    for (ScoreDoc h : hits) {
      MemoryRecord r = RecordDocument.read(fields, h.doc);
      if (query.admits(r)) {
        out.add(new ScoredRecord(r, 0f));
      }
    }
    return List.copyOf(out);
  }

  /** Namespace, ACTIVE, not expired at {@code now}, one of the kinds, every tag. */
  static Query recallFilter(Namespace namespace, SearchQuery query) {
    BooleanQuery.Builder b = new BooleanQuery.Builder();
    b.add(new TermQuery(new Term(RecordDocument.NAMESPACE, namespace.value())), Occur.FILTER);
    b.add(new TermQuery(new Term(RecordDocument.STATUS, MemoryStatus.ACTIVE.name())), Occur.FILTER);
    // Only records with an expire time have the point, so this clause costs little.
    b.add(
        LongPoint.newRangeQuery(
            RecordDocument.EXPIRE, Long.MIN_VALUE, RecordDocument.saturatedNanos(query.now())),
        Occur.MUST_NOT);
    if (!query.kinds().isEmpty() && query.kinds().size() < MemoryKind.values().length) {
      BooleanQuery.Builder kinds = new BooleanQuery.Builder();
      for (MemoryKind k : query.kinds()) {
        kinds.add(new TermQuery(new Term(RecordDocument.KIND, k.name())), Occur.SHOULD);
      }
      b.add(kinds.build(), Occur.FILTER);
    }
    for (String tag : query.tags()) {
      b.add(new TermQuery(new Term(RecordDocument.TAG, tag)), Occur.FILTER);
    }
    return b.build();
  }

  /** {@code x} within 0..1: similarities of unit vectors may stray past 1 by float rounding. */
  private static float clamp(float x) {
    return Math.min(1f, Math.max(0f, x));
  }
}
