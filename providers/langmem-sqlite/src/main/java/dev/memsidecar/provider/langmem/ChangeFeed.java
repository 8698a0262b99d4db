package dev.memsidecar.provider.langmem;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.jdbc.Database;
import dev.memsidecar.jdbc.postgresql.ChangeLogCursor;
import dev.memsidecar.jdbc.postgresql.PostgresListener;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

/**
 * Keeps the in-memory indexes of one store fresh with the writes of other stores (other sidecars)
 * on the same PostgreSQL tables, through the change log {@code memory_changes} (schema version 5).
 *
 * <p><b>Writing.</b> Every transaction of the store that puts or deletes a record, or writes its
 * vector, ends with {@link #log}: one row per record it changed (numbered by the identity column
 * {@code seq}, drawn after the transaction locked that record's row, so one record's seqs follow
 * its commits) and one {@code pg_notify} on the channel of the tables' schema ({@link #channel}),
 * which PostgreSQL delivers when the transaction commits. The seq is the version of the record the
 * store's index then holds ({@link NamespaceIndexCache.Slot}).
 *
 * <p><b>Reading.</b> A {@link PostgresListener} (its own connection, {@code application_name}
 * {@value PostgresListener#APPLICATION_NAME}) wakes {@link #catchUp} on a notification of another
 * store, on (re)connecting, and every {@link #POLL} anyway. A catch-up reads, in one {@code
 * REPEATABLE READ} snapshot, the log rows the {@link ChangeLogCursor} has not seen (those above its
 * high-water mark and the gaps below it, which a late commit may still fill), then for the records
 * of namespaces this store has an index of whose version is older than the change, the records and
 * vectors themselves, and applies them (put, replace, or remove when the record is gone or no
 * longer ACTIVE). A record whose vector is not written yet (its writer makes it behind) is indexed
 * with a zero vector meanwhile, found by its words, as its writer's own index has it; its vector
 * arrives as a change of its own. Only then does the cursor move, so a catch-up that fails is done
 * again.
 *
 * <p><b>Bounds.</b> The log keeps {@link #RETENTION}: each store deletes older rows every {@link
 * #PRUNE_EVERY} or so. A store that could not catch up for half of that (the database unreachable
 * from it, while others may have pruned) starts over: it drops its indexes (each is loaded again on
 * its next search) and reads on from {@value #START_WINDOW} seqs below the newest, as at open.
 *
 * <p>Thread-safety: {@link #log} runs on the committer's thread, {@link #catchUp} on the
 * listener's; they share only the indexes, whose slots are synchronized.
 */
final class ChangeFeed implements AutoCloseable {
  static final String TABLE = "memory_changes";

  /** The longest time between two catch-ups, notifications or not. */
  static final Duration POLL = Duration.ofSeconds(2);

  /** How long a row of the log is kept. */
  static final Duration RETENTION = Duration.ofMinutes(10);

  /** How often (give or take half of it, so that stores spread) a store prunes the log. */
  static final Duration PRUNE_EVERY = Duration.ofMinutes(1);

  /**
   * How many seqs below the newest a reader starts at, to cover those drawn, not yet committed, by
   * writers running when it starts: each has at most {@link LangMemSqliteStore#MAX_BATCH} and
   * commits within milliseconds of drawing them.
   */
  static final long START_WINDOW = 10_000;

  /** The most ids re-read by one statement. */
  private static final int REREAD_CHUNK = 500;

  private static final System.Logger LOG = System.getLogger(ChangeFeed.class.getName());

  /** How the store turns a stored vector row into the vector its index holds. */
  @FunctionalInterface
  interface VectorSource {
    /**
     * The vector to index {@code r} with, from its vector row ({@code bytes} and {@code embedder}
     * null when it has none).
     */
    float[] vectorOf(MemoryRecord r, byte[] bytes, String embedder, int dimensions);
  }

  private final String describe;
  private final Database db;
  private final NamespaceIndexCache indexes;
  private final VectorSource vectors;
  private final String channel;
  private final String ownPayload = UUID.randomUUID().toString();
  private final AtomicLong applied = new AtomicLong();
  private final AtomicLong catchUps = new AtomicLong();
  private final AtomicLong resets = new AtomicLong();
  // Guarded by this (catchUp): the listener thread and searches that wait for freshness.
  private ChangeLogCursor cursor;
  private long lastCaughtUp; // System.nanoTime()
  private long nextPrune; // System.nanoTime()

  /** Catch-ups begun; written under this. */
  private volatile long begun;

  /** The high-water mark after the last catch-up, and whether it left gaps below it. */
  private volatile long caughtUpTo;

  private volatile boolean gapsLeft = true;
  private PostgresListener listener;

  private ChangeFeed(
      String describe,
      Database db,
      NamespaceIndexCache indexes,
      VectorSource vectors,
      String channel,
      ChangeLogCursor cursor) {
    this.describe = describe;
    this.db = db;
    this.indexes = indexes;
    this.vectors = vectors;
    this.channel = channel;
    this.cursor = cursor;
    this.lastCaughtUp = System.nanoTime();
    this.nextPrune = System.nanoTime() + jitteredPrunePeriod() / 2;
  }

  /**
   * The feed of {@code db}'s tables: reads where the log ends now (before any index of the store
   * loads, so nothing committed after a load is missed) and starts listening.
   *
   * @param describe what log lines call the store
   * @param url, user, password how the listener connects
   */
  static ChangeFeed start(
      String describe,
      Database db,
      String url,
      String user,
      String password,
      NamespaceIndexCache indexes,
      VectorSource vectors)
      throws SQLException {
    requireNonNull(indexes, "indexes is null");
    requireNonNull(vectors, "vectors is null");
    String channel = db.call(ChangeFeed::channel);
    ChangeLogCursor cursor = ChangeLogCursor.start(db.call(ChangeFeed::newest), START_WINDOW);
    ChangeFeed feed = new ChangeFeed(describe, db, indexes, vectors, channel, cursor);
    feed.listener =
        PostgresListener.start(
            new PostgresListener.Settings(
                describe,
                url,
                user,
                password,
                channel,
                feed.ownPayload,
                POLL,
                Duration.ofMillis(100),
                Duration.ofSeconds(5)),
            feed::catchUp);
    return feed;
  }

  /**
   * The notification channel of the tables {@code c} sees: one per schema (channels are per
   * database, and two schemas of one database hold the tables of two profiles).
   */
  static String channel(Connection c) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT current_schema()");
        ResultSet rs = st.executeQuery()) {
      rs.next();
      String schema = rs.getString(1);
      CRC32 crc = new CRC32();
      crc.update(String.valueOf(schema).getBytes(StandardCharsets.UTF_8));
      return String.format(Locale.ROOT, "memsidecar_langmem_%08x", crc.getValue());
    }
  }

  private static long newest(Connection c) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT COALESCE(MAX(seq), 0) FROM " + TABLE);
        ResultSet rs = st.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** What {@link #lockIfCurrent} runs; a statement of it serves a whole transaction. */
  static final String LOCK_IF_CURRENT =
      "SELECT content, context, status FROM "
          + RecordRows.TABLE
          + " WHERE namespace = ? AND id = ? FOR UPDATE";

  /**
   * Within the caller's transaction, on a statement of {@link #LOCK_IF_CURRENT} (prepared once a
   * transaction: H2 parses a {@code FOR UPDATE} query again for each statement it prepares), locks
   * the row of the record {@code version} is a version of and says whether it still has that text
   * and is ACTIVE, so that a vector made for it is still its vector (another store may have changed
   * it meanwhile) and the log row that follows is drawn under the record's lock.
   */
  static boolean lockIfCurrent(PreparedStatement lockIfCurrent, MemoryRecord version)
      throws SQLException {
    lockIfCurrent.setString(1, version.namespace().value());
    lockIfCurrent.setString(2, version.id());
    try (ResultSet rs = lockIfCurrent.executeQuery()) {
      return rs.next()
          && version.content().equals(rs.getString(1))
          && version.context().equals(rs.getString(2))
          && MemoryStatus.ACTIVE.name().equals(rs.getString(3));
    }
  }

  /** One record a transaction changed. */
  record Change(Namespace namespace, String id) {}

  /**
   * Within the caller's transaction on {@code c} (its last statements): adds a log row per change
   * and notifies the other stores. Returns each change's seq, in order.
   */
  long[] log(Connection c, List<Change> changes) throws SQLException {
    long[] seqs = new long[changes.size()];
    if (changes.isEmpty()) {
      return seqs;
    }
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO " + TABLE + " (namespace, record_id) VALUES (?, ?)",
            new String[] {"seq"})) {
      for (Change ch : changes) {
        st.setString(1, ch.namespace().value());
        st.setString(2, ch.id());
        st.addBatch();
      }
      st.executeBatch();
      try (ResultSet keys = st.getGeneratedKeys()) {
        for (int i = 0; i < seqs.length; i++) {
          if (!keys.next()) {
            throw new SQLException("the driver returned " + i + " seqs for " + seqs.length);
          }
          seqs[i] = keys.getLong(1);
        }
      }
    }
    try (PreparedStatement st = c.prepareStatement("SELECT pg_notify(?, ?)")) {
      st.setString(1, channel);
      st.setString(2, ownPayload);
      st.executeQuery().close();
    }
    return seqs;
  }

  /**
   * Reads in one snapshot what {@code namespace}'s index is loaded from: {@code load} reads the
   * records; the versions are those of the records' newest log rows (records deleted included).
   */
  static <T> T loadVersioned(
      Database db, Namespace namespace, Map<String, Long> versions, Database.Work<T> load)
      throws SQLException {
    return db.call(
        c -> {
          c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
          try {
            return Database.inTransaction(
                c,
                () -> {
                  T loaded = load.run(c);
                  try (PreparedStatement st =
                      c.prepareStatement(
                          "SELECT record_id, MAX(seq) FROM "
                              + TABLE
                              + " WHERE namespace = ? GROUP BY record_id")) {
                    st.setString(1, namespace.value());
                    try (ResultSet rs = st.executeQuery()) {
                      while (rs.next()) {
                        versions.put(rs.getString(1), rs.getLong(2));
                      }
                    }
                  }
                  return loaded;
                });
          } finally {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
          }
        });
  }

  /**
   * Returns once this store's indexes hold every change committed before the call, so a search sees
   * what any store acknowledged before it began, not a notification later. One query (where the log
   * ends) when the last catch-up read that far and left no gap; otherwise a catch-up that begins
   * after the call: the caller runs one, unless one began meanwhile (then it has ended when the
   * caller gets the lock, and it read what the caller needs). Any thread.
   */
  void awaitFresh() throws SQLException {
    long ticket = begun;
    long target = db.call(ChangeFeed::newest);
    if (caughtUpTo >= target && !gapsLeft) {
      return;
    }
    synchronized (this) {
      if (begun == ticket) {
        catchUp(null);
      }
    }
  }

  /**
   * Reads and applies what other stores changed; see the class comment. The listener's thread runs
   * it when woken ({@code why}), a search's through {@link #awaitFresh} (null); never two at once.
   */
  synchronized void catchUp(PostgresListener.Wake why) throws SQLException {
    begun++;
    long now = System.nanoTime();
    if (now - lastCaughtUp > RETENTION.toNanos() / 2) {
      startOver("no catch-up for " + TimeUnit.NANOSECONDS.toSeconds(now - lastCaughtUp) + " s");
    }
    boolean onTrack =
        db.call(
            c -> {
              c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
              try {
                return Database.inTransaction(c, () -> readAndApply(c));
              } finally {
                c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
              }
            });
    catchUps.incrementAndGet();
    lastCaughtUp = System.nanoTime();
    caughtUpTo = cursor.highWater();
    gapsLeft = cursor.gapCount() > 0;
    if (!onTrack) {
      startOver("more than " + ChangeLogCursor.MAX_GAPS + " seqs missing");
    }
    if (System.nanoTime() - nextPrune >= 0) {
      nextPrune = System.nanoTime() + jitteredPrunePeriod();
      prune();
    }
  }

  private boolean readAndApply(Connection c) throws SQLException {
    ChangeLogCursor.Snapshot snapshot = ChangeLogCursor.Snapshot.current(c);
    long[] askedGaps = cursor.gaps();
    List<Long> found = new ArrayList<>();
    // Per namespace with an index, the records whose change is newer than the index's version.
    Map<Namespace, Map<String, Long>> due = new LinkedHashMap<>();
    if (askedGaps.length > 0) {
      try (PreparedStatement st =
          c.prepareStatement(
              "SELECT seq, namespace, record_id FROM " + TABLE + " WHERE seq = ANY(?)")) {
        Long[] boxed = new Long[askedGaps.length];
        for (int i = 0; i < boxed.length; i++) {
          boxed[i] = askedGaps[i];
        }
        Array array = c.createArrayOf("bigint", boxed);
        st.setArray(1, array);
        collect(st, found, due);
      }
    }
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT seq, namespace, record_id FROM " + TABLE + " WHERE seq > ? ORDER BY seq")) {
      st.setLong(1, cursor.highWater());
      st.setFetchSize(1_000);
      collect(st, found, due);
    }
    for (Map.Entry<Namespace, Map<String, Long>> e : due.entrySet()) {
      NamespaceIndexCache.Slot slot = indexes.get(e.getKey());
      if (slot != null) {
        reread(c, e.getKey(), slot, e.getValue());
      }
    }
    return cursor.advance(snapshot, askedGaps, found.stream().mapToLong(Long::longValue).toArray());
  }

  private void collect(
      PreparedStatement st, List<Long> found, Map<Namespace, Map<String, Long>> due)
      throws SQLException {
    try (ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        long seq = rs.getLong(1);
        found.add(seq);
        Namespace namespace = Namespace.of(rs.getString(2));
        String id = rs.getString(3);
        NamespaceIndexCache.Slot slot = indexes.get(namespace);
        if (slot != null && slot.version(id) < seq) {
          due.computeIfAbsent(namespace, n -> new HashMap<>()).merge(id, seq, Math::max);
        }
      }
    }
  }

  /**
   * Reads the records {@code labels} names (with their vectors) and applies them to {@code slot},
   * each at the version of the change that made it due: what is read is at least that new.
   */
  private void reread(
      Connection c, Namespace namespace, NamespaceIndexCache.Slot slot, Map<String, Long> labels)
      throws SQLException {
    List<String> ids = new ArrayList<>(labels.keySet());
    int width = RecordRows.COLUMNS.size();
    for (int from = 0; from < ids.size(); from += REREAD_CHUNK) {
      List<String> chunk = ids.subList(from, Math.min(ids.size(), from + REREAD_CHUNK));
      Set<String> missing = new HashSet<>(chunk);
      try (PreparedStatement st =
          c.prepareStatement(
              "SELECT "
                  + RecordRows.selectList("r.")
                  + ", v.embedding, v.embedder, v.dimensions FROM "
                  + RecordRows.TABLE
                  + " r LEFT JOIN "
                  + Schema.VECTORS
                  + " v ON v.namespace = r.namespace AND v.record_id = r.id"
                  + " WHERE r.namespace = ? AND r.id = ANY(?)")) {
        st.setString(1, namespace.value());
        st.setArray(2, c.createArrayOf("varchar", chunk.toArray()));
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            MemoryRecord r = RecordRows.read(rs, 1);
            missing.remove(r.id());
            long version = labels.get(r.id());
            if (r.status() == MemoryStatus.ACTIVE) {
              float[] vector =
                  vectors.vectorOf(
                      r, rs.getBytes(width + 1), rs.getString(width + 2), rs.getInt(width + 3));
              slot.apply(r.id(), version, index -> index.put(r, vector));
            } else {
              slot.apply(r.id(), version, index -> index.remove(r.id()));
            }
            applied.incrementAndGet();
          }
        }
      }
      for (String id : missing) {
        slot.apply(id, labels.get(id), index -> index.remove(id));
        applied.incrementAndGet();
      }
    }
  }

  /**
   * Drops every index and reads on from {@value #START_WINDOW} seqs below the newest: what a store
   * does when it may have missed rows (pruned before it read them).
   */
  private void startOver(String why) throws SQLException {
    long newest = db.call(ChangeFeed::newest);
    cursor = ChangeLogCursor.start(newest, START_WINDOW);
    indexes.clear();
    lastCaughtUp = System.nanoTime();
    resets.incrementAndGet();
    LOG.log(
        Level.WARNING,
        () ->
            describe
                + ": lost track of the change log ("
                + why
                + "); its search indexes are loaded again from the tables");
  }

  /** Deletes the log rows older than {@link #RETENTION}; how many, or -1 if it failed. */
  int prune() {
    try {
      int deleted =
          db.call(
              c -> {
                try (PreparedStatement st =
                    c.prepareStatement(
                        "DELETE FROM "
                            + TABLE
                            + " WHERE changed_at < clock_timestamp() - make_interval(secs => ?)")) {
                  st.setLong(1, RETENTION.toSeconds());
                  return st.executeUpdate();
                }
              });
      LOG.log(Level.DEBUG, () -> describe + ": pruned " + deleted + " change log rows");
      return deleted;
    } catch (SQLException e) {
      LOG.log(Level.DEBUG, () -> describe + ": pruning the change log failed", e);
      return -1;
    }
  }

  private static long jitteredPrunePeriod() {
    long period = PRUNE_EVERY.toNanos();
    return period / 2 + ThreadLocalRandom.current().nextLong(period);
  }

  /** The listener's connection count (1 after the first connect); for tests. */
  long listenerConnects() {
    return listener.connects();
  }

  /** Records applied from other stores' changes; for tests and logs. */
  long applied() {
    return applied.get();
  }

  /** Catch-ups done; for tests. */
  long catchUps() {
    return catchUps.get();
  }

  /** Times the feed started over; for tests. */
  long resets() {
    return resets.get();
  }

  /** Stops listening. */
  @Override
  public void close() {
    if (listener != null) {
      listener.close();
    }
  }
}
