package dev.memsidecar.provider.lucene;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.Ids;
import dev.memsidecar.api.ListCursor;
import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Page;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.KnnVectorsFormat;
import org.apache.lucene.codecs.KnnVectorsReader;
import org.apache.lucene.codecs.KnnVectorsWriter;
import org.apache.lucene.codecs.lucene104.Lucene104Codec;
import org.apache.lucene.codecs.lucene99.Lucene99HnswVectorsFormat;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.SegmentWriteState;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.ConstantScoreQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermRangeQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.LockObtainFailedException;
import org.apache.lucene.store.NRTCachingDirectory;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.IOUtils;
import org.apache.lucene.util.VectorUtil;

/**
 * The records of one profile in one Lucene index ({@link RecordDocument} gives the layout): BM25
 * over analysed text and HNSW over embeddings, searched together.
 *
 * <p><b>Writes.</b> {@link #put} and {@link #delete} change the index and return only once an
 * {@code IndexWriter.commit()} (which fsyncs the new files) holds the change and the searchers have
 * been refreshed past it, so the write survives {@code kill -9} and every later get, list and
 * search sees it. Concurrent writers share commits ({@link GroupCommit}). A commit per write group
 * is far from Lucene's usual rhythm, so three things keep it cheap: new small segments are built in
 * RAM ({@link NRTCachingDirectory}) and written out whole at the commit, merged segments up to
 * {@value #MAX_COMPOUND_SEGMENT_MB} MB stay compound files (three files to fsync, not 25), and a
 * commit fsyncs its files in parallel ({@link ConcurrentSyncDirectory}). Writes to one record key
 * are serialized by one of {@value #LOCK_STRIPES} lock stripes held until durable, so {@code
 * delete} answers truly whether the record existed.
 *
 * <p><b>Search.</b> Two ranked lists over the same filter (namespace, ACTIVE, not expired at {@link
 * SearchQuery#now()}, kinds, tags), each applied <i>inside</i> its query, so a namespace of five
 * records among millions still gets its five: a {@link KnnFloatVectorQuery} with the filter (Lucene
 * searches the HNSW graph accepting only filtered documents, or scans them exactly when they are
 * few) and a BM25 disjunction of the query's analysed terms with the filter as a FILTER clause.
 * Each list is {@code max(2 topK, hnsw.ef_search)} deep; the kNN depth is also its candidate-queue
 * size (ef). {@link Fusion} turns ranks and scores into one score in 0..1; hits below {@link
 * SearchQuery#minScore()} drop, and the best {@code topK} come back highest score first, ties going
 * to the newer update time, then to the smaller id. A query with neither terms nor a non-zero
 * vector has no ranking signal: it returns the newest-updated admitted records, each scored 0.
 *
 * <p><b>Listing.</b> Newest first by (create time DESC, id DESC) on doc values, paged by keyset
 * ({@link ListCursor}).
 *
 * <p><b>Embedder changes.</b> The commit data names the embedder (name and dimensions) the vectors
 * came from; opening with another re-embeds every ACTIVE record once. Vectors of another length go
 * to another field, so the index never mixes lengths.
 *
 * <p><b>Thread-safety.</b> All methods may be called from many threads; reads never block writes.
 * {@link #close()} waits for calls in progress, commits and closes; later calls fail with
 * FAILED_PRECONDITION.
 */
final class LuceneHnswStore implements MemoryStore {
  static final int LOCK_STRIPES = 256;

  /** Segments up to this size are written as compound files, see {@link #mergePolicy()}. */
  static final int MAX_COMPOUND_SEGMENT_MB = 64;

  /** New segments up to this size are built in RAM until their commit. */
  static final double CACHE_SEGMENT_MB = 4.0;

  /** At most this much of them. */
  static final double CACHE_TOTAL_MB = 32.0;

  /** How many files a commit fsyncs at once. */
  static final int SYNC_THREADS = 8;

  /** The largest embedding length accepted (Lucene's own default limit is 1024). */
  static final int MAX_DIMENSIONS = 4096;

  /** The deepest either ranked list goes. */
  static final int MAX_DEPTH = 10_000;

  private static final String EMBEDDER_KEY = "memsidecar.embedder";
  private static final System.Logger LOG = System.getLogger(LuceneHnswStore.class.getName());

  /** Best first: higher score, then newer update time, then smaller id. */
  static final Comparator<ScoredRecord> BEST_FIRST =
      Comparator.comparingDouble((ScoredRecord s) -> s.score())
          .reversed()
          .thenComparing(s -> s.record().updateTime(), Comparator.reverseOrder())
          .thenComparing(s -> s.record().id());

  private static final Sort LIST_ORDER =
      new Sort(
          new SortField(RecordDocument.CREATED, SortField.Type.LONG, true),
          new SortField(RecordDocument.ID, SortField.Type.STRING, true));

  private static final Sort RECENT_ORDER =
      new Sort(
          new SortField(RecordDocument.UPDATED, SortField.Type.LONG, true),
          new SortField(RecordDocument.ID, SortField.Type.STRING, false));

  /** What {@link LuceneHnswProvider} reads from the settings. */
  record Options(
      int maxConn, int beamWidth, int efSearch, long commitMaxWaitMillis, Fusion fusion) {
    Options {
      requireNonNull(fusion, "fusion is null");
    }
  }

  private final String profileId;
  private final Path indexPath;
  private final Embedder embedder;
  private final Options options;
  private final String vectorField;
  private final MemoryTextAnalyzer analyzer;
  private final Directory directory;
  private final IndexWriter writer;
  private final SearcherManager searchers;
  private final GroupCommit committer;
  private final ReentrantLock[] stripes = new ReentrantLock[LOCK_STRIPES];
  private final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();
  private volatile boolean closed;

  private LuceneHnswStore(
      String profileId,
      Path indexPath,
      Embedder embedder,
      Options options,
      MemoryTextAnalyzer analyzer,
      Directory directory,
      IndexWriter writer,
      SearcherManager searchers) {
    this.profileId = profileId;
    this.indexPath = indexPath;
    this.embedder = embedder;
    this.options = options;
    this.vectorField = RecordDocument.vectorField(embedder.dimensions());
    this.analyzer = analyzer;
    this.directory = directory;
    this.writer = writer;
    this.searchers = searchers;
    for (int i = 0; i < stripes.length; i++) {
      stripes[i] = new ReentrantLock();
    }
    this.committer =
        new GroupCommit(
            "lucene-hnsw commit (" + profileId + ")",
            () -> {
              long seqNo = writer.commit();
              searchers.maybeRefreshBlocking();
              return seqNo;
            },
            options.commitMaxWaitMillis());
  }

  /**
   * Opens (creating if needed) the index in {@code indexPath}.
   *
   * @throws MemoryException UNAVAILABLE when the index cannot be opened, e.g. another process holds
   *     it (the message names the directory)
   */
  static LuceneHnswStore open(
      String profileId, Path indexPath, Embedder embedder, Options options) {
    requireNonNull(profileId, "profileId is null");
    requireNonNull(indexPath, "indexPath is null");
    requireNonNull(embedder, "embedder is null");
    requireNonNull(options, "options is null");
    if (embedder.dimensions() < 1 || embedder.dimensions() > MAX_DIMENSIONS) {
      throw MemoryException.invalidArgument(
          "embedder",
          "lucene-hnsw: embedder '"
              + embedder.name()
              + "' makes "
              + embedder.dimensions()
              + "-dimensional vectors; this provider takes 1.."
              + MAX_DIMENSIONS);
    }
    MemoryTextAnalyzer analyzer = new MemoryTextAnalyzer();
    Directory directory = null;
    IndexWriter writer = null;
    SearcherManager searchers = null;
    long started = System.nanoTime();
    try {
      Files.createDirectories(indexPath);
      // Small new segments are built in RAM and reach the disk whole at the commit's sync: a
      // flush writes some 25 files and packs them into one compound file, and only that one, its
      // entries and segment info need to touch the file system.
      directory =
          new ConcurrentSyncDirectory(
              new NRTCachingDirectory(
                  FSDirectory.open(indexPath), CACHE_SEGMENT_MB, CACHE_TOTAL_MB),
              SYNC_THREADS,
              "lucene-hnsw-fsync-" + profileId);
      IndexWriterConfig config = new IndexWriterConfig(analyzer);
      config.setOpenMode(IndexWriterConfig.OpenMode.CREATE_OR_APPEND);
      config.setCodec(codec(options));
      config.setCommitOnClose(true);
      config.setMergePolicy(mergePolicy());
      writer = new IndexWriter(directory, config);
      int reembedded = adoptEmbedder(writer, embedder, analyzer);
      searchers = new SearcherManager(writer, true, false, null);
      int docs = writer.getDocStats().numDocs;
      LOG.log(
          Level.INFO,
          () ->
              String.format(
                  Locale.ROOT,
                  "lucene-hnsw: profile '%s' opened %s: %d records (%d re-embedded), M=%d,"
                      + " beam_width=%d, ef_search=%d, fusion=%s, vectorization: %s, %d ms",
                  profileId,
                  indexPath,
                  docs,
                  reembedded,
                  options.maxConn(),
                  options.beamWidth(),
                  options.efSearch(),
                  options.fusion().settingValue(),
                  LuceneHnswProvider.vectorizationInfo(),
                  (System.nanoTime() - started) / 1_000_000));
      return new LuceneHnswStore(
          profileId, indexPath, embedder, options, analyzer, directory, writer, searchers);
    } catch (LockObtainFailedException e) {
      IOUtils.closeWhileHandlingException(searchers, writer, directory);
      throw MemoryException.unavailable(
          "lucene-hnsw: cannot open index "
              + indexPath
              + " for profile '"
              + profileId
              + "': another store or process holds it",
          e);
    } catch (IOException | RuntimeException e) {
      IOUtils.closeWhileHandlingException(searchers, writer, directory);
      if (e instanceof MemoryException me) {
        throw me;
      }
      throw MemoryException.unavailable(
          "lucene-hnsw: cannot open index "
              + indexPath
              + " for profile '"
              + profileId
              + "': "
              + e.getClass().getSimpleName()
              + ": "
              + firstLine(e.getMessage()),
          e);
    }
  }

  @Override
  public void put(MemoryRecord record) {
    requireNonNull(record, "record is null");
    Namespace namespace = record.namespace();
    RecordDocument.checkTimes(record);
    enter();
    try {
      // Join before embedding, so a commit starting meanwhile waits (briefly) for this write.
      committer.join();
      boolean awaiting = false;
      try {
        float[] vector = record.status() == MemoryStatus.ACTIVE ? embed(record.indexedText()) : null;
        Document doc = RecordDocument.of(record, vector, vectorField);
        Term key = RecordDocument.key(namespace, record.id());
        ReentrantLock stripe = stripe(key);
        stripe.lock();
        try {
          long seqNo;
          try {
            seqNo = writer.updateDocument(key, doc);
          } catch (IOException | RuntimeException e) {
            throw writeFailure("put", record.id(), e);
          }
          awaiting = true;
          committer.await(seqNo);
        } finally {
          stripe.unlock();
        }
      } finally {
        if (!awaiting) {
          committer.leave();
        }
      }
    } finally {
      exit();
    }
  }

  /**
   * Puts every record of {@code records} (all of {@code namespace}) with one commit: for bulk loads
   * and tests. The same promise as {@link #put} once it returns; if it fails, any subset of the
   * records may have been written. It takes no record locks, so a concurrent {@link #delete} of one
   * of its ids may answer as if the put came first or last.
   */
  void putAll(Namespace namespace, List<MemoryRecord> records) {
    requireNonNull(namespace, "namespace is null");
    List<Document> docs = new ArrayList<>(records.size());
    for (MemoryRecord r : records) {
      if (!r.namespace().equals(namespace)) {
        throw MemoryException.invalidArgument(
            "namespace", "record '" + r.id() + "' belongs to namespace '" + r.namespace() + "'");
      }
      RecordDocument.checkTimes(r);
      float[] vector = r.status() == MemoryStatus.ACTIVE ? embed(r.indexedText()) : null;
      docs.add(RecordDocument.of(r, vector, vectorField));
    }
    enter();
    try {
      committer.join();
      long seqNo = -1;
      try {
        for (int i = 0; i < docs.size(); i++) {
          MemoryRecord r = records.get(i);
          seqNo = writer.updateDocument(RecordDocument.key(namespace, r.id()), docs.get(i));
        }
      } catch (IOException | RuntimeException e) {
        committer.leave();
        throw writeFailure("put", "(batch)", e);
      }
      committer.await(seqNo);
    } finally {
      exit();
    }
  }

  @Override
  public Optional<MemoryRecord> get(Namespace namespace, String id) {
    requireNonNull(namespace, "namespace is null");
    Ids.require("id", id);
    enter();
    try {
      IndexSearcher s = searchers.acquire();
      try {
        TopDocs top = s.search(new TermQuery(RecordDocument.key(namespace, id)), 1);
        if (top.scoreDocs.length == 0) {
          return Optional.empty();
        }
        return Optional.of(RecordDocument.read(s.storedFields(), top.scoreDocs[0].doc));
      } finally {
        searchers.release(s);
      }
    } catch (IOException | AlreadyClosedException e) {
      throw readFailure("get", e);
    } finally {
      exit();
    }
  }

  @Override
  public Page list(Namespace namespace, ListQuery query) {
    requireNonNull(namespace, "namespace is null");
    requireNonNull(query, "query is null");
    ListCursor after = query.cursor() == null ? null : ListCursor.decode(query.cursor());
    BooleanQuery.Builder q = new BooleanQuery.Builder();
    q.add(new TermQuery(new Term(RecordDocument.NAMESPACE, namespace.value())), Occur.FILTER);
    if (!query.includeInactive()) {
      q.add(
          new TermQuery(new Term(RecordDocument.STATUS, MemoryStatus.ACTIVE.name())), Occur.FILTER);
    }
    if (after != null) {
      q.add(after(after), Occur.FILTER);
    }
    enter();
    try {
      IndexSearcher s = searchers.acquire();
      try {
        // One more than a page tells whether another page follows.
        ScoreDoc[] hits = s.search(q.build(), query.pageSize() + 1, LIST_ORDER).scoreDocs;
        StoredFields fields = s.storedFields();
        int n = Math.min(hits.length, query.pageSize());
        List<MemoryRecord> records = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          records.add(RecordDocument.read(fields, hits[i].doc));
        }
        if (hits.length <= query.pageSize()) {
          return new Page(records, null);
        }
        return new Page(records, ListCursor.after(records.get(n - 1)).encode());
      } finally {
        searchers.release(s);
      }
    } catch (IOException | AlreadyClosedException e) {
      throw readFailure("list", e);
    } finally {
      exit();
    }
  }

  @Override
  public List<ScoredRecord> search(Namespace namespace, SearchQuery query) {
    requireNonNull(namespace, "namespace is null");
    requireNonNull(query, "query is null");
    ensureOpen();
    float[] vector = queryVector(query);
    List<String> terms = analyzer.distinctTerms(RecordDocument.TEXT, query.text());
    enter();
    try {
      IndexSearcher s = searchers.acquire();
      try {
        return search(s, recallFilter(namespace, query), query, vector, terms);
      } finally {
        searchers.release(s);
      }
    } catch (IOException | AlreadyClosedException e) {
      throw readFailure("search", e);
    } finally {
      exit();
    }
  }

  @Override
  public boolean delete(Namespace namespace, String id) {
    requireNonNull(namespace, "namespace is null");
    Ids.require("id", id);
    Term key = RecordDocument.key(namespace, id);
    enter();
    try {
      ReentrantLock stripe = stripe(key);
      stripe.lock();
      try {
        // Every earlier write of this key is visible: it held the stripe until it was.
        IndexSearcher s = searchers.acquire();
        try {
          if (s.count(new TermQuery(key)) == 0) {
            return false;
          }
        } finally {
          searchers.release(s);
        }
        committer.join();
        long seqNo;
        try {
          seqNo = writer.deleteDocuments(key);
        } catch (IOException | RuntimeException e) {
          committer.leave();
          throw writeFailure("delete", id, e);
        }
        committer.await(seqNo);
        return true;
      } finally {
        stripe.unlock();
      }
    } catch (IOException | AlreadyClosedException e) {
      throw readFailure("delete", e);
    } finally {
      exit();
    }
  }

  /** Waits for calls in progress, commits, and closes the index. Idempotent. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    gate.writeLock().lock();
    try {
      committer.close();
      IOUtils.close(searchers, writer, directory);
      LOG.log(
          Level.INFO,
          () ->
              String.format(
                  Locale.ROOT,
                  "lucene-hnsw: profile '%s' closed %s after %d commits",
                  profileId,
                  indexPath,
                  committer.commits()));
    } catch (IOException e) {
      LOG.log(Level.WARNING, () -> "lucene-hnsw: closing " + indexPath + " failed", e);
      throw MemoryException.unavailable(
          "lucene-hnsw: closing index " + indexPath + " failed: " + firstLine(e.getMessage()), e);
    } finally {
      gate.writeLock().unlock();
    }
  }

  @Override
  public String toString() {
    return "LuceneHnswStore[profile=" + profileId + ", index=" + indexPath + "]";
  }

  /** How many commits have run; for tests. */
  long commits() {
    return committer.commits();
  }

  /** How many segments the current searcher sees; for tests and benchmarks. */
  int segments() throws IOException {
    IndexSearcher s = searchers.acquire();
    try {
      return s.getIndexReader().leaves().size();
    } finally {
      searchers.release(s);
    }
  }

  // ---- search ----

  /** One candidate of a hybrid search: its ranks and normalised scores in both lists. */
  private static final class Candidate {
    final int doc;
    int knnRank;
    int bm25Rank;
    float vector = Float.NaN;
    float bm25;
    float score;

    Candidate(int doc) {
      this.doc = doc;
    }
  }

  private List<ScoredRecord> search(
      IndexSearcher s, Query filter, SearchQuery query, float[] vector, List<String> terms)
      throws IOException {
    int depth = Math.min(MAX_DEPTH, Math.max(2 * query.topK(), options.efSearch()));
    boolean knnActive = vector != null;
    boolean bm25Active = !terms.isEmpty();
    if (!knnActive && !bm25Active) {
      return recent(s, filter, query);
    }
    Map<Integer, Candidate> candidates = new HashMap<>();
    if (knnActive) {
      ScoreDoc[] hits =
          s.search(new KnnFloatVectorQuery(vectorField, vector, depth, filter), depth).scoreDocs;
      int[] ranks = ranks(hits);
      for (int i = 0; i < hits.length; i++) {
        Candidate c = candidates.computeIfAbsent(hits[i].doc, Candidate::new);
        c.knnRank = ranks[i];
        // Lucene scores DOT_PRODUCT as (1 + cos) / 2.
        c.vector = Math.max(0f, 2 * hits[i].score - 1);
      }
    }
    if (bm25Active) {
      BooleanQuery.Builder b = new BooleanQuery.Builder();
      for (String t : terms) {
        b.add(new TermQuery(new Term(RecordDocument.TEXT, t)), Occur.SHOULD);
      }
      b.setMinimumNumberShouldMatch(1);
      b.add(filter, Occur.FILTER);
      ScoreDoc[] hits = s.search(b.build(), depth).scoreDocs;
      float best = hits.length == 0 ? 0f : hits[0].score;
      int[] ranks = ranks(hits);
      for (int i = 0; i < hits.length; i++) {
        Candidate c = candidates.computeIfAbsent(hits[i].doc, Candidate::new);
        c.bm25Rank = ranks[i];
        c.bm25 = best > 0 ? hits[i].score / best : 0f;
      }
    }
    if (knnActive && options.fusion() == Fusion.BLEND) {
      fillVectorScores(s, candidates, vector);
    }
    List<Candidate> ranked = new ArrayList<>(candidates.size());
    for (Candidate c : candidates.values()) {
      float v = Float.isNaN(c.vector) ? 0f : c.vector;
      c.score = options.fusion().score(knnActive, bm25Active, c.knnRank, c.bm25Rank, v, c.bm25);
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
    out.sort(BEST_FIRST);
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
        c.vector = Math.max(0f, VectorUtil.dotProduct(q, values.vectorValue(it.index())));
      }
    }
  }

  /** No ranking signal: the newest-updated admitted records, scored 0. */
  private List<ScoredRecord> recent(IndexSearcher s, Query filter, SearchQuery query)
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

  /** Records strictly after {@code c} in (create time DESC, id DESC) order. */
  private static Query after(ListCursor c) {
    long created = RecordDocument.toNanos(c.createTime(), "page_token");
    BooleanQuery.Builder b = new BooleanQuery.Builder();
    if (created > Long.MIN_VALUE) {
      b.add(
          LongPoint.newRangeQuery(RecordDocument.CREATED, Long.MIN_VALUE, created - 1),
          Occur.SHOULD);
    }
    BooleanQuery.Builder sameTime = new BooleanQuery.Builder();
    sameTime.add(LongPoint.newExactQuery(RecordDocument.CREATED, created), Occur.FILTER);
    sameTime.add(
        TermRangeQuery.newStringRange(RecordDocument.ID, null, c.id(), false, false), Occur.FILTER);
    b.add(sameTime.build(), Occur.SHOULD);
    b.setMinimumNumberShouldMatch(1);
    return b.build();
  }

  // ---- embeddings ----

  /** The unit embedding of {@code text}, or null when it is all zeros. */
  private float[] embed(String text) {
    float[] v = embedder.embed(text);
    if (v == null || v.length != embedder.dimensions()) {
      throw MemoryException.internal(
          "lucene-hnsw: embedder '"
              + embedder.name()
              + "' returned "
              + (v == null ? "null" : v.length + " dimensions")
              + " instead of "
              + embedder.dimensions(),
          null);
    }
    return unitOrNull(v);
  }

  /** The query's vector (given or embedded from its text) as a unit vector, or null if zero. */
  private float[] queryVector(SearchQuery query) {
    return unitOrNull(query.unitVector(embedder));
  }

  private static float[] unitOrNull(float[] v) {
    double norm = 0;
    for (float x : v) {
      norm += (double) x * x;
    }
    if (norm == 0 || !Double.isFinite(norm)) {
      return null;
    }
    if (Math.abs(norm - 1.0) < 1e-5) {
      return v;
    }
    float[] unit = new float[v.length];
    float inv = (float) (1.0 / Math.sqrt(norm));
    for (int i = 0; i < v.length; i++) {
      unit[i] = v[i] * inv;
    }
    return unit;
  }

  /**
   * Makes the index's vectors those of {@code embedder}: if the last commit names another embedder,
   * re-embeds every record. Returns how many records it re-indexed.
   */
  private static int adoptEmbedder(
      IndexWriter writer, Embedder embedder, MemoryTextAnalyzer analyzer) throws IOException {
    String want = embedder.name() + "/" + embedder.dimensions();
    Map<String, String> data = new HashMap<>();
    Iterable<Map.Entry<String, String>> live = writer.getLiveCommitData();
    if (live != null) {
      for (Map.Entry<String, String> e : live) {
        data.put(e.getKey(), e.getValue());
      }
    }
    if (want.equals(data.get(EMBEDDER_KEY))) {
      return 0;
    }
    String field = RecordDocument.vectorField(embedder.dimensions());
    int count = 0;
    try (DirectoryReader reader = DirectoryReader.open(writer)) {
      for (LeafReaderContext leaf : reader.leaves()) {
        Bits liveDocs = leaf.reader().getLiveDocs();
        StoredFields fields = leaf.reader().storedFields();
        for (int doc = 0; doc < leaf.reader().maxDoc(); doc++) {
          if (liveDocs != null && !liveDocs.get(doc)) {
            continue;
          }
          MemoryRecord r = RecordDocument.read(fields, doc);
          float[] v = null;
          if (r.status() == MemoryStatus.ACTIVE) {
            v = unitOrNull(embedder.embed(r.indexedText()));
          }
          writer.updateDocument(
              RecordDocument.key(r.namespace(), r.id()), RecordDocument.of(r, v, field));
          count++;
        }
      }
    }
    if (count > 0) {
      String had = data.get(EMBEDDER_KEY);
      int n = count;
      LOG.log(
          Level.INFO,
          () ->
              "lucene-hnsw: re-embedded "
                  + n
                  + " records: the index held vectors of "
                  + (had == null ? "an unknown embedder" : "'" + had + "'")
                  + ", the profile now uses '"
                  + want
                  + "'");
    }
    data.put(EMBEDDER_KEY, want);
    writer.setLiveCommitData(data.entrySet());
    writer.commit();
    return count;
  }

  // ---- plumbing ----

  /**
   * Tiered merging, but with segments up to {@value #MAX_COMPOUND_SEGMENT_MB} MB always in compound
   * files. A commit per write group makes many tiny segments and merges them often; the stock
   * policy writes a merged segment holding over 10% of a small index as some 25 separate files,
   * each to be fsynced at the next commit, opened and deleted again soon after. Compound, it is
   * three.
   */
  private static TieredMergePolicy mergePolicy() {
    TieredMergePolicy policy = new TieredMergePolicy();
    policy.setNoCFSRatio(1.0);
    policy.setMaxCFSSegmentSizeMB(MAX_COMPOUND_SEGMENT_MB);
    return policy;
  }

  /** Lucene's current codec with this store's HNSW parameters for every vector field. */
  private static Codec codec(Options options) {
    KnnVectorsFormat format = new HnswFormat(options.maxConn(), options.beamWidth());
    return new Lucene104Codec() {
      @Override
      public KnnVectorsFormat getKnnVectorsFormatForField(String field) {
        return format;
      }
    };
  }

  /**
   * {@link Lucene99HnswVectorsFormat} with this store's M and beam width, allowing up to {@value
   * #MAX_DIMENSIONS} dimensions. It writes under the standard format's name and files, so any
   * Lucene reads the index back with the stock format; only the writer-side length check differs.
   */
  private static final class HnswFormat extends KnnVectorsFormat {
    private final Lucene99HnswVectorsFormat delegate;

    HnswFormat(int maxConn, int beamWidth) {
      super("Lucene99HnswVectorsFormat");
      this.delegate = new Lucene99HnswVectorsFormat(maxConn, beamWidth);
    }

    @Override
    public KnnVectorsWriter fieldsWriter(SegmentWriteState state) throws IOException {
      return delegate.fieldsWriter(state);
    }

    @Override
    public KnnVectorsReader fieldsReader(SegmentReadState state) throws IOException {
      return delegate.fieldsReader(state);
    }

    @Override
    public int getMaxDimensions(String fieldName) {
      return MAX_DIMENSIONS;
    }

    @Override
    public String toString() {
      return "HnswFormat(" + delegate + ")";
    }
  }

  private ReentrantLock stripe(Term key) {
    return stripes[Math.floorMod(key.bytes().hashCode(), stripes.length)];
  }

  /** Enters the gate {@link #close()} shuts; pair with {@link #exit()}. */
  private void enter() {
    ensureOpen();
    gate.readLock().lock();
    if (closed) {
      gate.readLock().unlock();
      throw closedException();
    }
  }

  private void exit() {
    gate.readLock().unlock();
  }

  private void ensureOpen() {
    if (closed) {
      throw closedException();
    }
  }

  private MemoryException closedException() {
    return MemoryException.failedPrecondition(
        "lucene-hnsw store of profile '" + profileId + "' is closed");
  }

  private MemoryException writeFailure(String operation, String id, Exception e) {
    if (e instanceof MemoryException me) {
      return me;
    }
    if (e instanceof IllegalArgumentException) {
      // e.g. a tag longer than Lucene's 32766-byte term limit: the input is at fault.
      return MemoryException.invalidArgument(
          "record", "record '" + id + "' does not fit this store: " + firstLine(e.getMessage()));
    }
    return failure(operation, e);
  }

  private MemoryException readFailure(String operation, Exception e) {
    return failure(operation, e);
  }

  private MemoryException failure(String operation, Exception e) {
    if (closed) {
      return closedException();
    }
    LOG.log(Level.WARNING, () -> "lucene-hnsw: " + operation + " failed on " + indexPath, e);
    return MemoryException.unavailable(
        "lucene-hnsw: "
            + operation
            + " failed on "
            + indexPath
            + ": "
            + e.getClass().getSimpleName()
            + ": "
            + firstLine(e.getMessage()),
        e);
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}
