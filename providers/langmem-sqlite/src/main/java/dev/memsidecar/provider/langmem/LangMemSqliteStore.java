package dev.memsidecar.provider.langmem;

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
import dev.memsidecar.api.PendingVectors;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.jdbc.Database;
import dev.memsidecar.jdbc.DatabaseUnreachableException;
import dev.memsidecar.jdbc.Dialect;
import dev.memsidecar.jdbc.NoFreeConnectionException;
import dev.memsidecar.jdbc.postgresql.PostgresDialect;
import dev.memsidecar.toolkit.HybridIndex;
import dev.memsidecar.toolkit.HybridScore;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The records of one profile in two SQL tables ({@link Schema}): {@code memory_records}, the source
 * of truth, and {@code memory_vectors}, one embedding per ACTIVE record.
 *
 * <p><b>Writes.</b> {@link #put} upserts the record in one transaction, with its vector when the
 * namespace's index holds the record with the same text ({@link HybridIndex#vectorIfSameText}: only
 * status, tags or metadata changed), else deleting a stale one (and any vector of a record that is
 * not ACTIVE). When it returns the transaction is committed, and on H2 written to the file ({@link
 * dev.memsidecar.jdbc.h2.H2Options} explains {@code WRITE_DELAY=0}), so it survives {@code kill -9}
 * of this process.
 *
 * <p><b>Vectors behind the write.</b> An ACTIVE record put without a vector waits in the {@link
 * VectorBacklog} (at most {@value #MAX_BACKLOG}; a put waits up to {@value #BACKLOG_WAIT_MILLIS} ms
 * for room, then fails with UNAVAILABLE) and is indexed meanwhile with a zero vector: found by its
 * words. The store's vector worker embeds waiting records, up to {@value #VECTOR_BATCH} per model
 * call, of {@code content + "\n" + context}, and writes each vector unless the record changed
 * meanwhile. A search by meaning first waits (up to {@value #SEARCH_WAIT_MILLIS} ms) for the
 * vectors of its namespace's records written before it when they are likely to land within that
 * time (no more than the worker made in that time lately, and never fewer than {@value
 * #VECTOR_BATCH}), so what was just written is found by meaning once its put returned; behind a
 * bulk load it does not wait in vain, and ranks the waiting records by their words alone until
 * their vectors land. A search by words alone (a zero query vector) never waits. Records a crash
 * left without a vector are found when the store opens and embedded by the worker; {@link #close}
 * waits up to {@value #CLOSE_WAIT_MILLIS} ms for the backlog. Puts and deletes of all namespaces go
 * through one {@link GroupCommitter}: those that arrive while a transaction commits share the next
 * one (up to {@value #MAX_BATCH}), so concurrent writers pay for one commit (on H2, one chunk
 * written to the file) together, not each. A batch whose transaction fails is written again one
 * write per transaction, so a write the database refuses fails alone.
 *
 * <p><b>Embedders.</b> Each vector row names the {@linkplain Embedder#name() embedder} that made
 * it. Opening the store with another embedder (another name or length) than made the stored vectors
 * embeds those vectors again before {@link #open} returns ({@link Reembedding}), so vectors of two
 * models are never compared.
 *
 * <p><b>Search.</b> Each searched namespace gets a {@link HybridIndex} in memory, built from the
 * database on its first search (its stored vectors, so nothing is embedded again unless the
 * embedder changed) and then kept current by this store's own writes; at most {@value
 * #INDEXED_NAMESPACES} namespaces stay indexed, least recently used dropped first. {@link
 * HybridIndex} documents the ranking. On PostgreSQL several stores (the sidecars of several pods)
 * may share the tables: each transaction also writes the change log and notifies, and each store's
 * {@link ChangeFeed} applies the others' changes to its indexes, typically within milliseconds and
 * at worst within its poll ({@link ChangeFeed#POLL}) plus the time to read them; a search first
 * reads the log as far as it ends ({@link ChangeFeed#awaitFresh}: one query when nothing is new),
 * so it finds every write any store acknowledged before the search began. Each index change carries
 * the seq of its log row as a version, so a store's own writes, read back from the log, are not
 * applied twice and nothing rolls a record back. On H2 (one process per file) there is no log and
 * no listener.
 *
 * <p><b>Listing.</b> Newest first by ({@code created_at} DESC, {@code id} DESC), paged by keyset
 * ({@link ListCursor}), so a page boundary never moves when newer records arrive.
 *
 * <p><b>Thread-safety.</b> All methods may be called from many threads. Connections come from the
 * JDBC base's pool ({@link Database}). Writes run in batches one at a time, changing the database
 * and then the indexes in one order; a namespace's index is registered before it loads, so the
 * writes committed while it loads are applied to it when it is ready ({@link NamespaceIndexCache});
 * loading one namespace takes one of {@value #LOCK_STRIPES} lock stripes, so two first searches
 * load it once. Reads and searches take no lock of the store. After {@link #close()} every call
 * fails with FAILED_PRECONDITION.
 *
 * <p>One file of about 1,100 lines because writes, indexes and the vector backlog are one ordering:
 * every change to the three happens in {@link #commitBatch} and {@link #apply}, on the committer's
 * thread, in commit order, and the vector worker, the recovery at open and the index load each rely
 * on that order. The parts that stand alone are their own classes ({@link VectorBacklog}, {@link
 * GroupCommitter}, {@link NamespaceIndexCache}, {@link RecordRows}, {@link Reembedding}, {@link
 * ChangeFeed} for the other sidecars' changes on PostgreSQL), as do the index itself ({@code
 * HybridIndex}), the schema and the SQL dialect.
 */
final class LangMemSqliteStore implements MemoryStore {
  static final int INDEXED_NAMESPACES = 256;

  /**
   * How many namespaces (those written last) get their index loaded in the background when the
   * store opens, so the first searches after a start or a crash find it in memory.
   */
  static final int WARMED_NAMESPACES = 4;

  static final int LOCK_STRIPES = 64;

  /** The most writes one transaction carries. */
  static final int MAX_BATCH = 256;

  /** How long a batch of writes waits for as many writers as the previous batch had. */
  static final long MAX_BATCH_WAIT_MILLIS = 2;

  /** The most records that wait for their vectors at once ({@link VectorBacklog}). */
  static final int MAX_BACKLOG = 10_000;

  /** How long a put waits for room in a full backlog before it fails with UNAVAILABLE. */
  static final long BACKLOG_WAIT_MILLIS = 30_000;

  /** The most records the vector worker embeds in one model call. */
  static final int VECTOR_BATCH = 32;

  /**
   * How long a search by meaning waits for the vectors of its namespace's records written before
   * it; past that it ranks those records by their words alone.
   */
  static final long SEARCH_WAIT_MILLIS = 2_000;

  /** How long close waits for the backlog to drain; what is left is embedded at the next open. */
  static final long CLOSE_WAIT_MILLIS = 5_000;

  /** Records {@code r}, each with its vector row {@code v} if it has one. */
  private static final String RECORDS_AND_VECTORS =
      " FROM "
          + RecordRows.TABLE
          + " r LEFT JOIN "
          + Schema.VECTORS
          + " v ON v.namespace = r.namespace AND v.record_id = r.id";

  private static final System.Logger LOG = System.getLogger(LangMemSqliteStore.class.getName());

  private final String profileId;
  private final String connectUrl;
  private final Embedder embedder;
  private final Database db;
  private final String upsertRecord;
  private final String upsertVector;
  private final NamespaceIndexCache indexes = new NamespaceIndexCache(INDEXED_NAMESPACES);
  private final ReentrantLock[] stripes = new ReentrantLock[LOCK_STRIPES];
  private final GroupCommitter<Write> writes =
      new GroupCommitter<>(this::commitBatch, MAX_BATCH, MAX_BATCH_WAIT_MILLIS);
  private final AtomicLong commits = new AtomicLong();
  private final VectorBacklog backlog = new VectorBacklog(MAX_BACKLOG);
  private final Thread vectorWorker;
  private ChangeFeed feed; // PostgreSQL only: the other stores' writes; set once at open
  private volatile boolean closed;
  // Records per second the vector worker made lately (a moving average over its batches); 0 until
  // its first batch.
  private volatile double vectorsPerSecond;

  /** A put, a delete, or a vector that landed, and what it found. */
  private static final class Write extends GroupCommitter.Job {
    enum Kind {
      PUT,
      DELETE,
      VECTOR
    }

    final Kind kind;
    final Namespace namespace;
    final String id;
    final MemoryRecord record; // a put's record, a vector's version; null for a delete
    final float[] vector; // a put's when ACTIVE and not due, a vector's; else null
    final boolean due; // an ACTIVE put whose vector is made behind
    boolean existed; // a delete's answer
    boolean written; // a vector's: still due when its batch ran, so written
    boolean added; // a due put's: added to the backlog (its reserved room used)
    long seq = NamespaceIndexCache.UNVERSIONED; // its change log row's, where there is a log

    private Write(
        Kind kind,
        Namespace namespace,
        String id,
        MemoryRecord record,
        float[] vector,
        boolean due) {
      this.kind = kind;
      this.namespace = namespace;
      this.id = id;
      this.record = record;
      // As stored: a search ranks it the same before and after a restart.
      this.vector = vector == null ? null : VectorBytes.rounded(vector);
      this.due = due;
    }

    static Write put(MemoryRecord record, float[] vector, boolean due) {
      return new Write(Kind.PUT, record.namespace(), record.id(), record, vector, due);
    }

    static Write delete(Namespace namespace, String id) {
      return new Write(Kind.DELETE, namespace, id, null, null, false);
    }

    static Write vector(MemoryRecord version, float[] vector) {
      return new Write(Kind.VECTOR, version.namespace(), version.id(), version, vector, false);
    }

    VectorBacklog.Key key() {
      return new VectorBacklog.Key(namespace, id);
    }

    @Override
    boolean background() {
      return kind == Kind.VECTOR;
    }
  }

  private LangMemSqliteStore(String profileId, Embedder embedder, Database db) {
    this.profileId = profileId;
    this.connectUrl = db.url();
    this.embedder = embedder;
    this.db = db;
    Dialect dialect = db.dialect();
    this.upsertRecord = dialect.upsert(RecordRows.TABLE, RecordRows.COLUMNS, RecordRows.KEY);
    this.upsertVector = dialect.upsert(Schema.VECTORS, Schema.VECTOR_COLUMNS, Schema.VECTOR_KEY);
    for (int i = 0; i < stripes.length; i++) {
      stripes[i] = new ReentrantLock();
    }
    this.vectorWorker = new Thread(this::embedBehind, "langmem-sqlite-vectors-" + profileId);
    vectorWorker.setDaemon(true);
  }

  /**
   * Connects to {@code url}, creating or migrating the tables ({@link Schema}), and embeds again
   * the vectors another embedder made ({@link Reembedding}).
   *
   * @param urlField the settings key {@code url} came from, named in INVALID_ARGUMENT errors
   * @param password never shown: messages and logs show the URL, so a password belongs here, not in
   *     the URL
   * @throws MemoryException INVALID_ARGUMENT for a URL of a database without a dialect, or whose
   *     options break the store's guarantees; UNAVAILABLE when the database cannot be opened or was
   *     written by a later release (the message names the URL)
   */
  static LangMemSqliteStore open(
      String profileId,
      String url,
      String urlField,
      String user,
      String password,
      int poolSize,
      Embedder embedder) {
    requireNonNull(profileId, "profileId is null");
    requireNonNull(url, "url is null");
    requireNonNull(embedder, "embedder is null");
    Database.Settings settings;
    try {
      settings = Database.Settings.forUrl(describe(profileId), url, null, user, password, poolSize);
    } catch (IllegalArgumentException e) {
      throw MemoryException.invalidArgument(
          urlField, cannotOpen(Dialect.withoutPasswords(url), profileId, e.getMessage()));
    }
    Database db = null;
    try {
      db = Database.open(settings, Schema.SCHEMA);
      if (!db.call(c -> Reembedding.isDone(c, embedder))) {
        // Another process opening the same database (PostgreSQL) may be at it too: one at a time.
        db.callExclusively(Schema.EMBEDDER, c -> Reembedding.run(c, embedder, profileId));
      }
    } catch (SQLException e) {
      closeQuietly(db);
      throw MemoryException.unavailable(
          cannotOpen(settings.url(), profileId, Database.firstLine(e)), e);
    } catch (RuntimeException e) {
      closeQuietly(db);
      throw e;
    }
    LOG.log(
        Level.INFO,
        () ->
            String.format(
                Locale.ROOT,
                "langmem-sqlite: profile '%s' opened %s (%s dialect, %d connections)",
                profileId,
                settings.url(),
                settings.dialect().name(),
                poolSize));
    LangMemSqliteStore store = new LangMemSqliteStore(profileId, embedder, db);
    try {
      store.recoverBacklog();
      if (settings.dialect() instanceof PostgresDialect) {
        // Before any index loads (the warming below), so no change committed after a load is
        // missed.
        store.feed =
            ChangeFeed.start(
                describe(profileId),
                db,
                settings.url(),
                user,
                password,
                store.indexes,
                store::storedVector);
      }
    } catch (SQLException e) {
      closeQuietly(db);
      throw MemoryException.unavailable(
          cannotOpen(settings.url(), profileId, Database.firstLine(e)), e);
    }
    store.vectorWorker.start();
    Thread warm = new Thread(store::warm, "langmem-sqlite-warm-" + profileId);
    warm.setDaemon(true);
    warm.start();
    return store;
  }

  private static String cannotOpen(String url, String profileId, String why) {
    return "langmem-sqlite: cannot open " + url + " for profile '" + profileId + "': " + why;
  }

  /** What messages call the store of {@code profileId}. */
  private static String describe(String profileId) {
    return "langmem-sqlite store of profile '" + profileId + "'";
  }

  /**
   * Loads the indexes of the {@link #WARMED_NAMESPACES} namespaces written last. A search of one of
   * them meanwhile waits for that load instead of starting its own. Stops at {@link #close}; a
   * failure is only logged (the next search of the namespace loads it again and reports it).
   */
  void warm() {
    try {
      List<Namespace> recent =
          db.call(
              c -> {
                List<Namespace> out = new ArrayList<>();
                try (PreparedStatement st =
                    c.prepareStatement(
                        "SELECT namespace FROM "
                            + RecordRows.TABLE
                            + " GROUP BY namespace ORDER BY MAX(created_at) DESC LIMIT ?")) {
                  st.setInt(1, WARMED_NAMESPACES);
                  try (ResultSet rs = st.executeQuery()) {
                    while (rs.next()) {
                      out.add(Namespace.of(rs.getString(1)));
                    }
                  }
                }
                return out;
              });
      for (Namespace namespace : recent) {
        if (closed) {
          return;
        }
        indexFor(namespace);
      }
    } catch (SQLException | RuntimeException e) {
      if (!closed) {
        LOG.log(Level.DEBUG, () -> "langmem-sqlite: warming the indexes of " + profileId, e);
      }
    }
  }

  @Override
  public void put(MemoryRecord record) {
    requireNonNull(record, "record is null");
    RecordRows.checkTimes(record);
    RecordRows.checkText(record, db.dialect());
    ensureOpen();
    boolean active = record.status() == MemoryStatus.ACTIVE;
    float[] vector = active ? indexedVector(record) : null;
    boolean due = active && vector == null;
    if (due) {
      backlog.reserve(BACKLOG_WAIT_MILLIS, describe(profileId));
    }
    Write write = Write.put(record, vector, due);
    writes.submit(write);
    if (due && !write.added) {
      backlog.unreserve();
    }
    if (write.failure() != null) {
      throw write.failure();
    }
  }

  @Override
  public Optional<MemoryRecord> get(Namespace namespace, String id) {
    requireNonNull(namespace, "namespace is null");
    Ids.require("id", id);
    ensureOpen();
    try {
      return db.call(
          c -> {
            try (PreparedStatement st =
                c.prepareStatement(
                    "SELECT "
                        + RecordRows.selectList("")
                        + " FROM "
                        + RecordRows.TABLE
                        + " WHERE namespace = ? AND id = ?")) {
              st.setString(1, namespace.value());
              st.setString(2, id);
              try (ResultSet rs = st.executeQuery()) {
                return rs.next() ? Optional.of(RecordRows.read(rs, 1)) : Optional.empty();
              }
            }
          });
    } catch (SQLException e) {
      throw failure("get", e);
    }
  }

  /** Every namespace with a record: one scan of the records' primary key, which leads with it. */
  @Override
  public List<Namespace> namespaces() {
    ensureOpen();
    try {
      return db.call(
          c -> {
            try (PreparedStatement st =
                    c.prepareStatement(
                        "SELECT DISTINCT namespace FROM "
                            + RecordRows.TABLE
                            + " ORDER BY namespace");
                ResultSet rs = st.executeQuery()) {
              List<Namespace> out = new ArrayList<>();
              while (rs.next()) {
                out.add(Namespace.of(rs.getString(1)));
              }
              return List.copyOf(out);
            }
          });
    } catch (SQLException e) {
      throw failure("list namespaces", e);
    }
  }

  @Override
  public Page list(Namespace namespace, ListQuery query) {
    requireNonNull(namespace, "namespace is null");
    requireNonNull(query, "query is null");
    ListCursor after = query.cursor() == null ? null : ListCursor.decode(query.cursor());
    long afterNanos = after == null ? 0 : RecordRows.toNanos(after.createTime(), "page_token");
    ensureOpen();
    String sql = listSql(query.includeInactive(), after != null);
    try {
      List<MemoryRecord> rows =
          db.call(
              c -> {
                try (PreparedStatement st = c.prepareStatement(sql)) {
                  int i = 1;
                  st.setString(i++, namespace.value());
                  if (!query.includeInactive()) {
                    st.setString(i++, MemoryStatus.ACTIVE.name());
                  }
                  if (after != null) {
                    st.setLong(i++, afterNanos);
                    st.setLong(i++, afterNanos);
                    st.setString(i++, after.id());
                  }
                  // One more than a page tells whether another page follows.
                  st.setInt(i, query.pageSize() + 1);
                  List<MemoryRecord> out = new ArrayList<>(query.pageSize() + 1);
                  try (ResultSet rs = st.executeQuery()) {
                    while (rs.next()) {
                      out.add(RecordRows.read(rs, 1));
                    }
                  }
                  return out;
                }
              });
      if (rows.size() <= query.pageSize()) {
        return new Page(rows, null);
      }
      List<MemoryRecord> page = rows.subList(0, query.pageSize());
      return new Page(page, ListCursor.after(page.get(page.size() - 1)).encode());
    } catch (SQLException e) {
      throw failure("list", e);
    }
  }

  /**
   * The query of a page of {@link #list}; its parameters: the namespace, the status unless {@code
   * includeInactive}, the cursor's time, time and id if {@code after}, and the row limit.
   */
  static String listSql(boolean includeInactive, boolean after) {
    StringBuilder sql =
        new StringBuilder("SELECT ")
            .append(RecordRows.selectList(""))
            .append(" FROM ")
            .append(RecordRows.TABLE)
            .append(" WHERE namespace = ?");
    if (!includeInactive) {
      sql.append(" AND status = ?");
    }
    if (after) {
      sql.append(" AND (created_at < ? OR (created_at = ? AND id < ?))");
    }
    // namespace leads the order, though it is fixed, so that it matches Schema.LISTING_INDEX: H2
    // reads the page from the index in order only when the ORDER BY spells out the index's prefix.
    return sql.append(" ORDER BY namespace, created_at DESC, id DESC LIMIT ?").toString();
  }

  @Override
  public List<ScoredRecord> search(Namespace namespace, SearchQuery query) {
    requireNonNull(namespace, "namespace is null");
    requireNonNull(query, "query is null");
    ensureOpen();
    float[] vector = query.unitVector(embedder);
    if (!HybridIndex.isZero(vector)) {
      awaitVectors(namespace);
    }
    return indexFor(namespace).search(query, vector);
  }

  /** On PostgreSQL, reads the change log as far as it ends ({@link ChangeFeed#awaitFresh}). */
  @Override
  public void refresh(Namespace namespace) {
    requireNonNull(namespace, "namespace is null");
    ensureOpen();
    if (feed != null) {
      try {
        feed.awaitFresh();
      } catch (SQLException e) {
        throw failure("read the other sidecars' changes", e);
      }
    }
  }

  @Override
  public boolean delete(Namespace namespace, String id) {
    requireNonNull(namespace, "namespace is null");
    Ids.require("id", id);
    ensureOpen();
    Write write = Write.delete(namespace, id);
    writes.submit(write);
    if (write.failure() != null) {
      throw write.failure();
    }
    return write.existed;
  }

  /** Closes the connections (H2 closes its file with the last one). Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    try {
      if (!backlog.awaitNamespace(null, CLOSE_WAIT_MILLIS, Integer.MAX_VALUE)) {
        LOG.log(
            Level.INFO,
            () ->
                String.format(
                    Locale.ROOT,
                    "langmem-sqlite: profile '%s' closes with %d records waiting for their"
                        + " vectors; they are embedded when it opens again",
                    profileId,
                    backlog.size()));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    closed = true;
    if (feed != null) {
      feed.close();
    }
    backlog.close();
    vectorWorker.interrupt();
    db.close();
    indexes.clear();
    LOG.log(
        Level.INFO,
        () ->
            String.format(
                Locale.ROOT,
                "langmem-sqlite: profile '%s' closed %s (%,d writes in %,d transactions)",
                profileId,
                connectUrl,
                writes.jobs(),
                writes.batches()));
  }

  @Override
  public String toString() {
    return "LangMemSqliteStore[profile=" + profileId + ", url=" + connectUrl + "]";
  }

  /** How many namespaces have an index in memory; for tests. */
  int indexedNamespaces() {
    return indexes.size();
  }

  /** The change feed (PostgreSQL), or null (H2); for tests. */
  ChangeFeed feed() {
    return feed;
  }

  /** The namespace's index if it is loaded, else null; for tests. */
  HybridIndex loadedIndex(Namespace namespace) {
    NamespaceIndexCache.Slot entry = indexes.get(namespace);
    return entry == null ? null : entry.index();
  }

  @Override
  public PendingVectors pendingVectors() {
    return backlog.pending();
  }

  /** How many transactions writes have committed; for tests and benchmarks. */
  long commits() {
    return commits.get();
  }

  /**
   * Commits {@code batch} in one transaction, then applies it to the indexes; if the transaction
   * fails, commits each write in its own so that each gets its own answer. Runs in one thread at a
   * time ({@link GroupCommitter}).
   */
  private void commitBatch(List<Write> batch) {
    try {
      db.call(c -> writeAll(c, batch));
    } catch (SQLException | RuntimeException e) {
      if (batch.size() == 1) {
        fail(batch.get(0), e);
        return;
      }
      for (Write write : batch) {
        try {
          db.call(c -> writeAll(c, List.of(write)));
        } catch (SQLException | RuntimeException alone) {
          fail(write, alone);
          continue;
        }
        apply(write);
      }
      return;
    }
    for (Write write : batch) {
      apply(write);
    }
  }

  /**
   * {@code batch} ordered by namespace and id, the writes of one record in their order: every
   * transaction locks rows in that order, and each record's row before its vector's, so the
   * transactions of several stores on one PostgreSQL database never deadlock.
   */
  private static List<Write> inLockOrder(List<Write> batch) {
    if (batch.size() == 1) {
      return batch;
    }
    List<Write> ordered = new ArrayList<>(batch);
    // A stable sort: the writes of one record keep their order.
    ordered.sort(Comparator.comparing((Write w) -> w.namespace.value()).thenComparing(w -> w.id));
    return ordered;
  }

  /**
   * Writes {@code batch} in one transaction on {@code c}: the writes of each record in order, the
   * records in {@link #inLockOrder lock order}.
   */
  private Void writeAll(Connection c, List<Write> batch) throws SQLException {
    Database.inTransaction(
        c,
        () -> {
          try (PreparedStatement records = c.prepareStatement(upsertRecord);
              PreparedStatement vectors = c.prepareStatement(upsertVector);
              PreparedStatement lockIfCurrent =
                  batch.stream().anyMatch(w -> w.kind == Write.Kind.VECTOR)
                      ? c.prepareStatement(ChangeFeed.LOCK_IF_CURRENT)
                      : null;
              PreparedStatement deleteVectors =
                  c.prepareStatement(
                      "DELETE FROM " + Schema.VECTORS + " WHERE namespace = ? AND record_id = ?");
              PreparedStatement deleteRecords =
                  c.prepareStatement(
                      "DELETE FROM " + RecordRows.TABLE + " WHERE namespace = ? AND id = ?")) {
            // Records put or deleted earlier in this batch: a vector landing for them is of a
            // version the backlog no longer holds once the batch applies.
            Set<VectorBacklog.Key> changed = new HashSet<>();
            for (Write w : inLockOrder(batch)) {
              if (w.kind == Write.Kind.VECTOR) {
                w.written =
                    !changed.contains(w.key())
                        && backlog.isDue(w.record)
                        && ChangeFeed.lockIfCurrent(lockIfCurrent, w.record);
                if (!w.written) {
                  continue;
                }
              } else {
                changed.add(w.key());
              }
              if (w.kind == Write.Kind.PUT) {
                RecordRows.bind(records, w.record);
                records.executeUpdate();
              }
              if (w.kind == Write.Kind.DELETE) {
                deleteRecords.setString(1, w.namespace.value());
                deleteRecords.setString(2, w.id);
                w.existed = deleteRecords.executeUpdate() > 0;
              }
              if (w.vector != null) {
                vectors.setString(1, w.namespace.value());
                vectors.setString(2, w.id);
                vectors.setInt(3, w.vector.length);
                vectors.setBytes(4, VectorBytes.encode(w.vector));
                vectors.setString(5, embedder.name());
                vectors.executeUpdate();
              } else {
                deleteVectors.setString(1, w.namespace.value());
                deleteVectors.setString(2, w.id);
                deleteVectors.executeUpdate();
              }
            }
          }
          if (feed != null) {
            logChanges(c, batch);
          }
          return null;
        });
    commits.incrementAndGet();
    return null;
  }

  /**
   * Adds the change log rows of the writes of {@code batch} that changed a record (a delete of a
   * record that was not there changed nothing) and notifies the other stores; each such write gets
   * its row's seq, the version its index change carries.
   */
  private void logChanges(Connection c, List<Write> batch) throws SQLException {
    List<Write> changing = new ArrayList<>(batch.size());
    List<ChangeFeed.Change> changes = new ArrayList<>(batch.size());
    for (Write w : batch) {
      w.seq = NamespaceIndexCache.UNVERSIONED;
      boolean changed =
          switch (w.kind) {
            case PUT -> true;
            case DELETE -> w.existed;
            case VECTOR -> w.written;
          };
      if (changed) {
        changing.add(w);
        changes.add(new ChangeFeed.Change(w.namespace, w.id));
      }
    }
    long[] seqs = feed.log(c, changes);
    for (int i = 0; i < seqs.length; i++) {
      changing.get(i).seq = seqs[i];
    }
  }

  /**
   * Applies a committed write to the backlog and to its namespace's index, if that is in memory (or
   * loading). A record due for a vector is indexed with a zero one meanwhile: found by its words.
   */
  private void apply(Write w) {
    if (w.kind == Write.Kind.VECTOR && !w.written) {
      // Its record changed meanwhile: if another store changed it, nothing else clears it here.
      backlog.clearIfDue(w.record);
      return;
    }
    NamespaceIndexCache.Slot entry = indexes.get(w.namespace);
    try {
      if (entry == null) {
        // Not in memory: its next load reads the database.
      } else if (feed != null && w.seq == NamespaceIndexCache.UNVERSIONED) {
        // A delete that found nothing: nothing to change (and no version to change it at; an
        // insert another store committed meanwhile comes through the change log).
      } else if (w.vector != null) {
        entry.apply(w.id, w.seq, index -> index.put(w.record, w.vector));
      } else if (w.due) {
        entry.apply(w.id, w.seq, index -> index.put(w.record, new float[embedder.dimensions()]));
      } else {
        entry.apply(w.id, w.seq, index -> index.remove(w.id));
      }
    } catch (RuntimeException e) {
      indexes.remove(w.namespace);
      w.fail(e);
    } finally {
      // After the index: a search waiting for this vector finds it there once woken.
      if (w.due) {
        backlog.add(w.record);
        w.added = true;
      } else {
        backlog.clear(w.namespace, w.id, w.record);
      }
    }
  }

  /** Records why {@code w} failed, in the terms its caller gets. */
  private void fail(Write w, Exception e) {
    // The commit may have happened after all (e.g. a lost server connection): rebuild the
    // index from the database rather than trust it.
    indexes.remove(w.namespace);
    if (e instanceof RuntimeException r) {
      w.fail(r);
      return;
    }
    SQLException sql = (SQLException) e;
    if (w.kind == Write.Kind.PUT && db.dialect().isDataException(sql)) {
      // A value the database cannot hold: the input is at fault, not the store.
      w.fail(
          MemoryException.invalidArgument(
              "record",
              "record '"
                  + w.id
                  + "' does not fit this store (SQLSTATE "
                  + sql.getSQLState()
                  + ": a value the database cannot hold)"));
      return;
    }
    w.fail(failure(w.kind.name().toLowerCase(Locale.ROOT), sql));
  }

  /**
   * The indexed vector of an ACTIVE record if its text did not change (a change of status, tags or
   * metadata), else null: its vector is to be made behind.
   */
  private float[] indexedVector(MemoryRecord record) {
    if (backlog.waits(record.namespace(), record.id())) {
      return null;
    }
    NamespaceIndexCache.Slot entry = indexes.get(record.namespace());
    HybridIndex index = entry == null ? null : entry.index();
    float[] indexed = index == null ? null : index.vectorIfSameText(record);
    // A zero vector stands in for one still to be made (or one of a text with nothing to embed).
    return indexed == null || HybridIndex.isZero(indexed) ? null : indexed;
  }

  /**
   * Waits (up to {@value #SEARCH_WAIT_MILLIS} ms) for the vectors of the records of {@code
   * namespace} written before this call, so a search by meaning finds what was just written; not at
   * all when more wait than are likely to land in that time ({@link #searchWaitBacklog}).
   */
  private void awaitVectors(Namespace namespace) {
    try {
      backlog.awaitNamespace(namespace, SEARCH_WAIT_MILLIS, searchWaitBacklog());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * The most waiting records a search by meaning waits for: as many as the vector worker made in
   * {@value #SEARCH_WAIT_MILLIS} ms lately, at least one batch ({@value #VECTOR_BATCH}).
   */
  int searchWaitBacklog() {
    return (int) Math.max(VECTOR_BATCH, vectorsPerSecond * SEARCH_WAIT_MILLIS / 1000.0);
  }

  /**
   * The vector worker: takes due records in batches, embeds them in one model call and writes their
   * vectors (those still due when the batch commits). A failing embedder or database is logged and
   * retried after a pause; the records keep waiting meanwhile.
   */
  private void embedBehind() {
    try {
      embedUntilClosed();
    } finally {
      if (!closed) {
        // Only an error escapes the loop: say so, since no vector is made from now on.
        LOG.log(
            Level.ERROR,
            "langmem-sqlite: profile '"
                + profileId
                + "': the vector worker stopped; records written from now on are found by their"
                + " words only until the sidecar restarts");
      }
    }
  }

  private void embedUntilClosed() {
    while (true) {
      List<MemoryRecord> batch;
      try {
        batch = backlog.take(VECTOR_BATCH);
      } catch (InterruptedException e) {
        return;
      }
      if (batch.isEmpty()) {
        return; // closed
      }
      try {
        long started = System.nanoTime();
        List<float[]> vectors =
            embedder.embedAll(batch.stream().map(MemoryRecord::indexedText).toList());
        List<Write> landed = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
          landed.add(Write.vector(batch.get(i), vectors.get(i)));
        }
        writes.submitAll(landed);
        for (Write w : landed) {
          if (w.failure() != null) {
            throw w.failure(); // retried below: the vectors written are no longer due
          }
        }
        double rate = batch.size() * 1e9 / Math.max(1, System.nanoTime() - started);
        vectorsPerSecond = vectorsPerSecond == 0 ? rate : 0.8 * vectorsPerSecond + 0.2 * rate;
      } catch (RuntimeException e) {
        if (closed) {
          return;
        }
        LOG.log(
            Level.WARNING,
            () ->
                "langmem-sqlite: profile '"
                    + profileId
                    + "' could not make the vectors of "
                    + batch.size()
                    + " records; trying again in 1 s",
            e);
        backlog.retry(batch);
        try {
          Thread.sleep(1_000);
        } catch (InterruptedException stop) {
          return;
        }
      }
    }
  }

  /**
   * Adds the ACTIVE records that have no vector (written just before a crash) to the backlog; runs
   * in {@link #open}, before any write.
   */
  private void recoverBacklog() throws SQLException {
    int found =
        db.call(
            c -> {
              int count = 0;
              try (PreparedStatement st =
                  c.prepareStatement(
                      "SELECT "
                          + RecordRows.selectList("r.")
                          + RECORDS_AND_VECTORS
                          + " WHERE r.status = ? AND v.record_id IS NULL")) {
                st.setString(1, MemoryStatus.ACTIVE.name());
                try (ResultSet rs = st.executeQuery()) {
                  while (rs.next()) {
                    backlog.recover(RecordRows.read(rs, 1));
                    count++;
                  }
                }
              }
              return count;
            });
    if (found > 0) {
      LOG.log(
          Level.INFO,
          () ->
              String.format(
                  Locale.ROOT,
                  "langmem-sqlite: profile '%s': %d records have no vector yet; making them"
                      + " in the background",
                  profileId,
                  found));
    }
  }

  /** The namespace's index, built from the database if it is not in memory. */
  private HybridIndex indexFor(Namespace namespace) {
    NamespaceIndexCache.Slot entry = indexes.get(namespace);
    HybridIndex index = entry == null ? null : entry.index();
    if (index != null) {
      return index;
    }
    ReentrantLock stripe = stripe(namespace);
    stripe.lock();
    try {
      entry = indexes.get(namespace);
      index = entry == null ? null : entry.index();
      if (index != null) {
        return index;
      }
      // Registered before reading, so writes committed from now on reach the index (queued until
      // it is ready); those committed before are in what loadIndex reads.
      entry = indexes.add(namespace);
      Map<String, Long> versions = new HashMap<>();
      backlog.loadStarted();
      try {
        index =
            feed == null
                ? loadIndex(namespace)
                : ChangeFeed.loadVersioned(db, namespace, versions, c -> loadIndex(c, namespace));
      } catch (SQLException e) {
        indexes.remove(namespace, entry);
        throw failure("search", e);
      } catch (RuntimeException e) {
        indexes.remove(namespace, entry);
        throw e;
      } finally {
        backlog.loadEnded();
      }
      entry.ready(index, versions);
      return index;
    } finally {
      stripe.unlock();
    }
  }

  private HybridIndex loadIndex(Namespace namespace) throws SQLException {
    return db.call(c -> loadIndex(c, namespace));
  }

  /** The index of {@code namespace}'s ACTIVE records as {@code c} reads them. */
  private HybridIndex loadIndex(Connection c, Namespace namespace) throws SQLException {
    long started = System.nanoTime();
    HybridIndex index =
        new HybridIndex(embedder.dimensions(), HybridScore.meaningWeightFor(embedder.name()));
    int width = RecordRows.COLUMNS.size();
    int reembedded = 0;
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT "
                + RecordRows.selectList("r.")
                + ", v.embedding, v.embedder, v.dimensions"
                + RECORDS_AND_VECTORS
                + " WHERE r.namespace = ? AND r.status = ?")) {
      st.setString(1, namespace.value());
      st.setString(2, MemoryStatus.ACTIVE.name());
      st.setFetchSize(500);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          MemoryRecord r = RecordRows.read(rs, 1);
          byte[] bytes = rs.getBytes(width + 1);
          String madeBy = rs.getString(width + 2);
          int dimensions = rs.getInt(width + 3);
          if (bytes == null) {
            // No vector yet: a put committed a moment ago whose vector is not due here yet (its
            // worker, or another sidecar's, makes it), or one a migration left empty. Found by
            // its words meanwhile; the vector worker makes it unless it waits already (embedding
            // it here too would embed it twice).
            backlog.recover(r);
            index.put(r, new float[embedder.dimensions()]);
          } else if (!matches(bytes, madeBy, dimensions)) {
            // Written by another embedder since the store opened: embed it as queries will be.
            index.put(r, VectorBytes.rounded(embedder.embed(r.indexedText())));
            reembedded++;
          } else {
            index.put(r, storedVector(r, bytes, madeBy, dimensions));
          }
        }
      }
    }
    int count = reembedded;
    LOG.log(
        Level.DEBUG,
        () ->
            String.format(
                Locale.ROOT,
                "langmem-sqlite: indexed namespace %s: %d records (%d re-embedded) in %d ms",
                namespace,
                index.size(),
                count,
                (System.nanoTime() - started) / 1_000_000));
    return index;
  }

  /** Whether a vector row (or none: null bytes) holds a vector of this store's embedder. */
  private boolean matches(byte[] bytes, String madeBy, int dimensions) {
    return bytes == null
        || dimensions == embedder.dimensions()
            && VectorBytes.holds(bytes, dimensions)
            && embedder.name().equals(madeBy);
  }

  /**
   * The vector to index {@code r} with from its vector row: the stored one if this store's embedder
   * made it; a zero one (found by its words) if it has none yet, its vector being made behind (here
   * or by the store that wrote it, whose vector write then comes as a change); else (another
   * embedder's) embedded here.
   */
  private float[] storedVector(MemoryRecord r, byte[] bytes, String madeBy, int dimensions) {
    if (bytes == null) {
      return new float[embedder.dimensions()];
    }
    if (matches(bytes, madeBy, dimensions)) {
      return VectorBytes.decode(bytes, dimensions);
    }
    return VectorBytes.rounded(embedder.embed(r.indexedText()));
  }

  private ReentrantLock stripe(Namespace namespace) {
    return stripes[Math.floorMod(namespace.hashCode(), stripes.length)];
  }

  private void ensureOpen() {
    if (closed) {
      throw MemoryException.failedPrecondition(describe(profileId) + " is closed");
    }
  }

  private MemoryException failure(String operation, SQLException e) {
    if (closed || db.isClosed()) {
      return MemoryException.failedPrecondition(describe(profileId) + " is closed");
    }
    if (e instanceof NoFreeConnectionException) {
      return MemoryException.unavailable(e.getMessage() + "; raise pool.size", e);
    }
    if (e instanceof DatabaseUnreachableException) {
      // The database is down or restarting: every call says so; one stack trace each is noise.
      LOG.log(Level.DEBUG, () -> "langmem-sqlite: " + operation + ": " + e.getMessage());
      return MemoryException.unavailable(
          "langmem-sqlite: cannot " + operation + ": " + e.getMessage(), e);
    }
    LOG.log(Level.WARNING, () -> "langmem-sqlite: " + operation + " failed on " + connectUrl, e);
    return MemoryException.unavailable(
        "langmem-sqlite: "
            + operation
            + " failed on "
            + connectUrl
            + " ("
            + Database.errorCodes(e)
            + ")",
        e);
  }

  private static void closeQuietly(Database db) {
    if (db != null) {
      db.close();
    }
  }
}
