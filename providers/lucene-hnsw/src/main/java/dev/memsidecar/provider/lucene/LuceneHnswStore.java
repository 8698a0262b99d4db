package dev.memsidecar.provider.lucene;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.Ids;
import dev.memsidecar.api.ListCursor;
import dev.memsidecar.api.ListQuery;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.Page;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermRangeQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.LockObtainFailedException;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.IOUtils;

/**
 * The records of one profile in one Lucene index ({@link RecordIndex} opens it, {@link
 * RecordDocument} gives the layout), searched by BM25 and HNSW vectors together ({@link
 * HybridSearcher} says how hits are found and scored).
 *
 * <p><b>Writes.</b> {@link #put} and {@link #delete} change the index in memory, append the change
 * to the store's write-ahead log ({@link Translog}: the record's {@link RecordCodec} bytes, or its
 * key for a delete) and return once the log entry is fsynced, so the write survives {@code kill
 * -9}. Concurrent writers share one fsync ({@link GroupCommit}). Writes to one record key are
 * serialized by one of {@value #LOCK_STRIPES} lock stripes held until durable, so {@code delete}
 * answers truly whether the record existed. Records of another status than ACTIVE keep their
 * document but get no vector. A write that fails with UNAVAILABLE may still take effect: it may be
 * in the index already.
 *
 * <p><b>Reads.</b> Every get, list, search (and the existence check of a delete) sees every write
 * acknowledged before it started: if the searchers do not show all of them yet, the read refreshes
 * them first (a near-real-time refresh, no commit), and reads arriving meanwhile share that
 * refresh. Writes never wait for a refresh, so a burst of writes costs one refresh, paid by the
 * next read. A get (or a delete) looks up one key, so it refreshes only if a write to a key sharing
 * its slot (one of {@value Visibility#SLOTS}, by hash) may not be visible yet: a get before each
 * put, as a Remember with a request id does, refreshes once every few dozen puts rather than every
 * time.
 *
 * <p><b>Commits.</b> The index is committed in the background ({@link BackgroundCommit}) every
 * {@code translog.commit_interval_ms} while the log holds uncommitted writes, or as soon as it
 * holds {@code translog.commit_threshold_mb} of them; each commit starts a new log generation
 * first, names it in the commit data, and deletes the generations the commit covers. Opening the
 * store replays the log from the generation the last commit names (re-embedding the records it
 * puts, {@value BatchIndexer#BATCH} per {@link Embedder#embedAll} call), drops a torn last entry,
 * then commits. {@link #close()} commits and trims the log too, so a store closed cleanly opens
 * without replaying anything.
 *
 * <p><b>Merging.</b> Lucene merges segments as they pile up, but a burst of writes still leaves a
 * dozen or more, and a search runs one HNSW graph search per segment. So once no write has come for
 * {@code merge.idle_ms}, the index is merged into one segment in the background, then committed and
 * shown to searches; when the other segments hold less than a quarter of the largest one's records,
 * only they are merged, into one beside it ({@link IdleMergePolicy}). Closing aborts a merge under
 * way rather than waiting for it.
 *
 * <p><b>Listing.</b> Newest first by (create time DESC, id DESC) on doc values, paged by keyset
 * ({@link ListCursor}).
 *
 * <p><b>Thread-safety.</b> All methods may be called from many threads; reads never block writes.
 * {@link #close()} waits for calls in progress, commits and closes; later calls fail with
 * FAILED_PRECONDITION.
 *
 * <p>One file on purpose: the index writer, its write-ahead log and the searcher refresh share one
 * lifecycle and one lock order that read best together; ranking ({@code HybridSearcher}) lives
 * apart.
 */
final class LuceneHnswStore implements MemoryStore {
  static final int LOCK_STRIPES = 256;

  private static final System.Logger LOG = System.getLogger(LuceneHnswStore.class.getName());

  private static final Sort LIST_ORDER =
      new Sort(
          new SortField(RecordDocument.CREATED, SortField.Type.LONG, true),
          new SortField(RecordDocument.ID, SortField.Type.STRING, true));

  /**
   * What {@link LuceneHnswProvider} reads from the settings.
   *
   * @param syncMaxWaitMillis how long a group fsync waits for writes under way to join it
   * @param commitIntervalMillis how often the index is committed while the log holds writes
   * @param commitThresholdBytes how much uncommitted log makes the index commit at once
   * @param mergeIdleMillis how long without writes before the index is merged into one segment; 0
   *     for never
   */
  record Options(
      int maxConn,
      int beamWidth,
      int efSearch,
      long syncMaxWaitMillis,
      Fusion fusion,
      long commitIntervalMillis,
      long commitThresholdBytes,
      long mergeIdleMillis,
      VectorEncoding vectors) {
    Options {
      requireNonNull(fusion, "fusion is null");
      requireNonNull(vectors, "vectors is null");
    }
  }

  private final String profileId;
  private final Path indexPath;
  private final Embedder embedder;
  private final String vectorField;
  private final RecordIndex index;
  private final IndexWriter writer;
  private final SearcherManager searchers;
  private final HybridSearcher hybrid;
  private final Translog log;
  private final GroupCommit syncer;
  private final BackgroundCommit background;
  private final ReentrantLock commitLock = new ReentrantLock();
  private final AtomicLong commits = new AtomicLong();
  private final ReentrantLock[] stripes = new ReentrantLock[LOCK_STRIPES];
  private final Visibility visibility;
  private final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();
  private volatile long committedBytes; // log bytes appended before the last commit's roll
  // Used by whileIdle() only, on the background commit thread.
  private long idleMergeLogged = -1; // log.appendedBytes() when the last idle merge was decided
  private boolean idleMerging;
  private int segmentsBeforeIdleMerge; // when the idle merge under way was started
  private volatile boolean closed;

  private LuceneHnswStore(
      String profileId,
      Path indexPath,
      Embedder embedder,
      Options options,
      RecordIndex index,
      Translog log) {
    this.profileId = profileId;
    this.indexPath = indexPath;
    this.embedder = embedder;
    this.vectorField = RecordDocument.vectorField(embedder.dimensions());
    this.index = index;
    this.writer = index.writer();
    this.searchers = index.searchers();
    this.log = log;
    this.hybrid =
        new HybridSearcher(
            searchers, index.analyzer(), embedder, options.efSearch(), options.fusion());
    for (int i = 0; i < stripes.length; i++) {
      stripes[i] = new ReentrantLock();
    }
    this.visibility = new Visibility(searchers, log);
    this.syncer =
        new GroupCommit(
            "lucene-hnsw sync (" + profileId + ")",
            () -> log.write(log.take()),
            options.syncMaxWaitMillis());
    this.background =
        new BackgroundCommit(
            "lucene-hnsw commit (" + profileId + ")",
            this::commitAndTrim,
            () -> log.appendedBytes() - committedBytes,
            options.commitIntervalMillis(),
            options.commitThresholdBytes(),
            log::appendedBytes,
            options.mergeIdleMillis(),
            this::whileIdle);
  }

  /**
   * Opens (creating if needed) the index in {@code indexPath} and its write-ahead log in {@code
   * translogPath}, replays the log and commits.
   *
   * @throws MemoryException UNAVAILABLE when the index cannot be opened, e.g. another process holds
   *     it (the message names the directory), or when the log is corrupt before its tail (the
   *     message names the file and the offset)
   */
  static LuceneHnswStore open(
      String profileId, Path indexPath, Path translogPath, Embedder embedder, Options options) {
    requireNonNull(profileId, "profileId is null");
    requireNonNull(indexPath, "indexPath is null");
    requireNonNull(translogPath, "translogPath is null");
    requireNonNull(embedder, "embedder is null");
    requireNonNull(options, "options is null");
    if (embedder.dimensions() < 1 || embedder.dimensions() > Embedder.MAX_DIMENSIONS) {
      throw MemoryException.invalidArgument(
          "embedder",
          "lucene-hnsw: embedder '"
              + embedder.name()
              + "' makes "
              + embedder.dimensions()
              + "-dimensional vectors; this provider takes 1.."
              + Embedder.MAX_DIMENSIONS);
    }
    long started = System.nanoTime();
    RecordIndex index = null;
    Translog log = null;
    try {
      index =
          RecordIndex.open(
              profileId,
              indexPath,
              embedder,
              options.maxConn(),
              options.beamWidth(),
              options.vectors());
      BatchIndexer replay =
          new BatchIndexer(
              index.writer(),
              embedder,
              "profile '" + profileId + "': replaying the write-ahead log",
              -1);
      log = Translog.open(translogPath, index.committedTranslogGeneration(), replayer(replay));
      replay.finish();
      index.commit(log.generation());
      log.trimBelow(log.generation());
      index.searchers().maybeRefreshBlocking();
    } catch (LockObtainFailedException e) {
      abandon(log, index);
      throw MemoryException.unavailable(
          "lucene-hnsw: cannot open index "
              + indexPath
              + " for profile '"
              + profileId
              + "': another store or process holds it",
          e);
    } catch (IOException | RuntimeException e) {
      abandon(log, index);
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
    RecordIndex opened = index;
    Translog.Recovery recovery = log.recovery();
    LOG.log(
        Level.INFO,
        () ->
            String.format(
                Locale.ROOT,
                "lucene-hnsw: profile '%s' opened %s: %d records (%d re-embedded, %d operations"
                    + " replayed from %d log generations%s), M=%d, beam_width=%d, ef_search=%d,"
                    + " vectors=%s, fusion=%s, vectorization: %s, %d ms",
                profileId,
                indexPath,
                opened.records(),
                opened.reembedded(),
                recovery.operations(),
                recovery.generations(),
                recovery.droppedAt() == null
                    ? ""
                    : ", a torn tail of " + recovery.droppedBytes() + " bytes dropped",
                options.maxConn(),
                options.beamWidth(),
                options.efSearch(),
                options.vectors().settingValue(),
                options.fusion().settingValue(),
                LuceneHnswProvider.vectorizationInfo(),
                (System.nanoTime() - started) / 1_000_000));
    return new LuceneHnswStore(profileId, indexPath, embedder, options, index, log);
  }

  /** Closes what a failed {@link #open} opened, committing nothing. */
  private static void abandon(Translog log, RecordIndex index) {
    IOUtils.closeWhileHandlingException(log);
    if (index != null) {
      index.abandon();
    }
  }

  /**
   * Applies replayed log entries to the index through {@code replay} (whose batches embed the
   * records put together). Any entry replayed may already be in the index: replay is idempotent, as
   * a put replaces the document of its key and a delete of a missing key does nothing.
   */
  static Translog.Replayer replayer(BatchIndexer replay) {
    return (op, bytes, offset, length) -> {
      switch (op) {
        case Translog.PUT -> {
          byte[] encoded = Arrays.copyOfRange(bytes, offset, offset + length);
          replay.put(RecordCodec.decode(encoded, 0, encoded.length), encoded);
        }
        case Translog.DELETE ->
            replay.delete(
                new Term(
                    RecordDocument.KEY, BytesRef.deepCopyOf(new BytesRef(bytes, offset, length))));
        default -> throw new IllegalArgumentException("unknown operation " + op);
      }
    };
  }

  @Override
  public void put(MemoryRecord record) {
    requireNonNull(record, "record is null");
    Namespace namespace = record.namespace();
    RecordDocument.checkTimes(record);
    enter();
    try {
      // Join before embedding, so a sync starting meanwhile waits (briefly) for this write.
      syncer.join();
      boolean awaiting = false;
      try {
        byte[] encoded = encode(record);
        Document doc =
            RecordDocument.of(
                record, RecordDocument.embedding(record, embedder), vectorField, encoded);
        Term key = RecordDocument.key(namespace, record.id());
        ReentrantLock stripe = stripe(key);
        stripe.lock();
        try {
          long seq;
          try {
            // The index first, then the log: whatever a commit's log generation holds is in it.
            writer.updateDocument(key, doc);
            seq = log.append(Translog.PUT, encoded);
          } catch (IOException | RuntimeException e) {
            throw writeFailure("put", record.id(), e);
          }
          visibility.wrote(key, seq);
          awaiting = true;
          syncer.await(seq);
        } finally {
          stripe.unlock();
        }
      } finally {
        if (!awaiting) {
          syncer.leave();
        }
      }
    } finally {
      exit();
    }
  }

  /**
   * Puts every record of {@code records} (all of {@code namespace}) with one {@link
   * Embedder#embedAll} call and one fsync: for bulk loads and tests. The same promise as {@link
   * #put} once it returns; if it fails, any subset of the records may have been written. It takes
   * no record locks, so a concurrent {@link #delete} of one of its ids may answer as if the put
   * came first or last.
   */
  void putAll(Namespace namespace, List<MemoryRecord> records) {
    requireNonNull(namespace, "namespace is null");
    List<Document> docs = new ArrayList<>(records.size());
    List<byte[]> encoded = new ArrayList<>(records.size());
    List<float[]> vectors = RecordDocument.embeddings(records, embedder);
    for (int i = 0; i < records.size(); i++) {
      MemoryRecord r = records.get(i);
      if (!r.namespace().equals(namespace)) {
        throw MemoryException.invalidArgument(
            "namespace", "record '" + r.id() + "' belongs to namespace '" + r.namespace() + "'");
      }
      RecordDocument.checkTimes(r);
      byte[] bytes = encode(r);
      encoded.add(bytes);
      docs.add(RecordDocument.of(r, vectors.get(i), vectorField, bytes));
    }
    enter();
    try {
      syncer.join();
      long seq = -1;
      try {
        for (int i = 0; i < docs.size(); i++) {
          Term key = RecordDocument.key(namespace, records.get(i).id());
          writer.updateDocument(key, docs.get(i));
          seq = log.append(Translog.PUT, encoded.get(i));
          visibility.wrote(key, seq);
        }
      } catch (IOException | RuntimeException e) {
        syncer.leave();
        throw writeFailure("put", "(batch)", e);
      }
      syncer.await(seq);
    } finally {
      exit();
    }
  }

  @Override
  public Optional<MemoryRecord> get(Namespace namespace, String id) {
    requireNonNull(namespace, "namespace is null");
    Ids.require("id", id);
    Term key = RecordDocument.key(namespace, id);
    enter();
    try {
      visibility.ensureVisible(key);
      IndexSearcher s = searchers.acquire();
      try {
        TopDocs top = s.search(new TermQuery(key), 1);
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

  /**
   * The namespace field's terms that still match a live document (a term outlives its deleted
   * documents until their segment merges away).
   */
  @Override
  public List<Namespace> namespaces() {
    enter();
    try {
      visibility.ensureVisible();
      IndexSearcher s = searchers.acquire();
      try {
        Terms terms = MultiTerms.getTerms(s.getIndexReader(), RecordDocument.NAMESPACE);
        List<Namespace> out = new ArrayList<>();
        if (terms != null) {
          TermsEnum it = terms.iterator();
          for (BytesRef term = it.next(); term != null; term = it.next()) {
            Term t = new Term(RecordDocument.NAMESPACE, BytesRef.deepCopyOf(term));
            if (s.count(new TermQuery(t)) > 0) {
              out.add(Namespace.of(t.text()));
            }
          }
        }
        return List.copyOf(out);
      } finally {
        searchers.release(s);
      }
    } catch (IOException | AlreadyClosedException e) {
      throw readFailure("list namespaces", e);
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
      visibility.ensureVisible();
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
    enter();
    try {
      visibility.ensureVisible();
      return hybrid.search(namespace, query);
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
        // Every earlier write of this key is durable (it held the stripe until it was), so visible
        // once ensured.
        visibility.ensureVisible(key);
        IndexSearcher s = searchers.acquire();
        try {
          if (s.count(new TermQuery(key)) == 0) {
            return false;
          }
        } finally {
          searchers.release(s);
        }
        syncer.join();
        long seq;
        try {
          writer.deleteDocuments(key);
          seq = log.append(Translog.DELETE, BytesRef.deepCopyOf(key.bytes()).bytes);
        } catch (IOException | RuntimeException e) {
          syncer.leave();
          throw writeFailure("delete", id, e);
        }
        visibility.wrote(key, seq);
        syncer.await(seq);
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

  /**
   * Waits for calls in progress, commits the index, trims the log to one empty generation, and
   * closes both, aborting a merge under way. Idempotent.
   */
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
      syncer.close();
      background.close();
      IOException failure = null;
      try {
        commitAndTrim();
      } catch (IOException | RuntimeException e) {
        failure = e instanceof IOException io ? io : new IOException(e);
      }
      try {
        IOUtils.close(log, index);
      } catch (IOException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
      if (failure != null) {
        IOException e = failure;
        LOG.log(Level.WARNING, () -> "lucene-hnsw: closing " + indexPath + " failed", e);
        throw MemoryException.unavailable(
            "lucene-hnsw: closing index " + indexPath + " failed: " + firstLine(e.getMessage()), e);
      }
      LOG.log(
          Level.INFO,
          () ->
              String.format(
                  Locale.ROOT,
                  "lucene-hnsw: profile '%s' closed %s after %d log syncs, %d refreshes and %d"
                      + " commits",
                  profileId,
                  indexPath,
                  syncer.runs(),
                  visibility.refreshes(),
                  commits.get()));
    } finally {
      gate.writeLock().unlock();
    }
  }

  @Override
  public String toString() {
    return "LuceneHnswStore[profile=" + profileId + ", index=" + indexPath + "]";
  }

  /** How many index commits have run since open (the one at open excluded); for tests. */
  long commits() {
    return commits.get();
  }

  /** How many segments searches run over now; for tests. */
  int searchedSegments() throws IOException {
    IndexSearcher s = searchers.acquire();
    try {
      return s.getIndexReader().leaves().size();
    } finally {
      searchers.release(s);
    }
  }

  /** How many near-real-time refreshes reads have made; for tests. */
  long refreshes() {
    return visibility.refreshes();
  }

  /** How many group syncs of the log (each one write and one fsync) have run; for tests. */
  long syncs() {
    return syncer.runs();
  }

  /** Commits the index now and trims the log, as the background commit does; for tests. */
  void commit() {
    enter();
    try {
      commitAndTrim();
    } catch (IOException | RuntimeException e) {
      throw failure("commit", e);
    } finally {
      exit();
    }
  }

  /** The directory of the write-ahead log; for tests. */
  Path translogDirectory() {
    return log.directory();
  }

  /**
   * Runs on the background commit thread, every few dozen milliseconds while no write comes (see
   * {@code merge.idle_ms}): once per idle period, if the index has more than one segment, starts
   * merging it into one, or the segments beside the largest into one ({@link IdleMergePolicy}; a
   * search runs one HNSW graph search per segment), and when that merge is done, shows it to
   * searches and commits it. Writes may come meanwhile; the merge goes on. Cheap when there is
   * nothing to do.
   */
  private void whileIdle() throws IOException {
    if (idleMerging) {
      if (writer.hasPendingMerges() || !writer.getMergingSegments().isEmpty()) {
        return;
      }
      idleMerging = false;
      searchers.maybeRefreshBlocking();
      commitAndTrim();
      int segments = index.segments();
      if (segments > 1 && segments < segmentsBeforeIdleMerge) {
        // Lucene's own merges may have held segments back from this one (it takes no segment
        // being merged): look again, as long as each round leaves fewer segments.
        idleMergeLogged = -1;
      }
      return;
    }
    long logged = log.appendedBytes();
    if (logged == idleMergeLogged) {
      return;
    }
    idleMergeLogged = logged;
    segmentsBeforeIdleMerge = index.segments();
    if (segmentsBeforeIdleMerge > 1) {
      writer.forceMerge(1, false);
      idleMerging = true;
    }
  }

  /**
   * Starts a new log generation, commits the index naming it, and deletes the older generations:
   * every operation logged in them reached the writer before its entry was appended, so the commit
   * holds it.
   */
  private void commitAndTrim() throws IOException {
    commitLock.lock();
    try {
      long appended = log.appendedBytes();
      long generation = log.roll();
      index.commit(generation);
      log.trimBelow(generation);
      committedBytes = appended;
      commits.incrementAndGet();
    } finally {
      commitLock.unlock();
    }
  }

  // ---- plumbing ----

  /** The record's log and stored form; INVALID_ARGUMENT if the log cannot take it. */
  private static byte[] encode(MemoryRecord record) {
    byte[] encoded = RecordCodec.encode(record);
    if (encoded.length > Translog.MAX_PAYLOAD) {
      throw MemoryException.invalidArgument(
          "record",
          "record '"
              + record.id()
              + "' takes "
              + encoded.length
              + " bytes encoded; this store takes at most "
              + Translog.MAX_PAYLOAD);
    }
    return encoded;
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
      // Lucene refused a value of the document (a term over 32766 bytes, say): the input is at
      // fault, not the index.
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
