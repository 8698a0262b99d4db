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
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
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

/**
 * The records of one profile in one Lucene index ({@link RecordIndex} opens it, {@link
 * RecordDocument} gives the layout), searched by BM25 and HNSW vectors together ({@link
 * HybridSearcher} says how hits are found and scored).
 *
 * <p><b>Writes.</b> {@link #put} and {@link #delete} change the index and return only once an
 * {@code IndexWriter.commit()} (which fsyncs the new files) holds the change and the searchers have
 * been refreshed past it, so the write survives {@code kill -9} and every later get, list and
 * search sees it. Concurrent writers share commits ({@link GroupCommit}). Writes to one record key
 * are serialized by one of {@value #LOCK_STRIPES} lock stripes held until durable, so {@code
 * delete} answers truly whether the record existed. Records of another status than ACTIVE keep
 * their document but get no vector.
 *
 * <p><b>Listing.</b> Newest first by (create time DESC, id DESC) on doc values, paged by keyset
 * ({@link ListCursor}).
 *
 * <p><b>Thread-safety.</b> All methods may be called from many threads; reads never block writes.
 * {@link #close()} waits for calls in progress, commits and closes; later calls fail with
 * FAILED_PRECONDITION.
 */
final class LuceneHnswStore implements MemoryStore {
  static final int LOCK_STRIPES = 256;

  private static final System.Logger LOG = System.getLogger(LuceneHnswStore.class.getName());

  private static final Sort LIST_ORDER =
      new Sort(
          new SortField(RecordDocument.CREATED, SortField.Type.LONG, true),
          new SortField(RecordDocument.ID, SortField.Type.STRING, true));

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
  private final String vectorField;
  private final RecordIndex index;
  private final IndexWriter writer;
  private final SearcherManager searchers;
  private final HybridSearcher hybrid;
  private final GroupCommit committer;
  private final ReentrantLock[] stripes = new ReentrantLock[LOCK_STRIPES];
  private final ReentrantReadWriteLock gate = new ReentrantReadWriteLock();
  private volatile boolean closed;

  private LuceneHnswStore(
      String profileId, Path indexPath, Embedder embedder, Options options, RecordIndex index) {
    this.profileId = profileId;
    this.indexPath = indexPath;
    this.embedder = embedder;
    this.vectorField = RecordDocument.vectorField(embedder.dimensions());
    this.index = index;
    this.writer = index.writer();
    this.searchers = index.searchers();
    this.hybrid =
        new HybridSearcher(
            searchers, index.analyzer(), embedder, options.efSearch(), options.fusion());
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
    RecordIndex index;
    try {
      index =
          RecordIndex.open(profileId, indexPath, embedder, options.maxConn(), options.beamWidth());
    } catch (LockObtainFailedException e) {
      throw MemoryException.unavailable(
          "lucene-hnsw: cannot open index "
              + indexPath
              + " for profile '"
              + profileId
              + "': another store or process holds it",
          e);
    } catch (IOException | RuntimeException e) {
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
    LOG.log(
        Level.INFO,
        () ->
            String.format(
                Locale.ROOT,
                "lucene-hnsw: profile '%s' opened %s: %d records (%d re-embedded), M=%d,"
                    + " beam_width=%d, ef_search=%d, fusion=%s, vectorization: %s, %d ms",
                profileId,
                indexPath,
                index.records(),
                index.reembedded(),
                options.maxConn(),
                options.beamWidth(),
                options.efSearch(),
                options.fusion().settingValue(),
                LuceneHnswProvider.vectorizationInfo(),
                (System.nanoTime() - started) / 1_000_000));
    return new LuceneHnswStore(profileId, indexPath, embedder, options, index);
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
        Document doc =
            RecordDocument.of(record, RecordDocument.embedding(record, embedder), vectorField);
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
      docs.add(RecordDocument.of(r, RecordDocument.embedding(r, embedder), vectorField));
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
    enter();
    try {
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
      index.close();
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

  // ---- plumbing ----

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
