package dev.memsidecar.jdbc.h2;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.jdbc.Housekeeping;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.h2.engine.Session;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.FileStore;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.RandomAccessStore;
import org.h2.mvstore.db.Store;

/**
 * Keeps an embedded H2 file small while it commits with {@code WRITE_DELAY=0}, which the two
 * H2-backed stores need so that every acknowledged write is in the file when the call returns.
 *
 * <p>Why. With {@code WRITE_DELAY=0} H2 writes one MVStore chunk per commit on the committing
 * thread and starts no background thread, so nothing compacts the file; and H2 reuses a dead
 * chunk's space only after its {@code RETENTION_TIME} (45 s). A burst of small commits therefore
 * leaves a file of dead and sparse chunks: 20 kill -9 cycles holding 18,000 records left 671 MiB
 * (28x the data), and every chunk is one more to check when the store opens after a crash.
 *
 * <p>What it does, on one shared daemon thread, every {@value #PERIOD_MILLIS} ms for each database:
 *
 * <ol>
 *   <li><b>fsync</b>: pins the store's current version, forces the file to disk, then releases the
 *       previous pass's pin, and frees the chunks the old pin held. H2 overwrites a dead chunk only
 *       when no pinned version is older than the version that made it dead, so a chunk is
 *       overwritten only after the chunk that made it dead was forced to disk. That is what {@code
 *       RETENTION_TIME} guards by time ("the OS will have written it by then"); with the pin it is
 *       guarded by an fsync, so the retention time is set to 0 and dead chunks are reused within
 *       about two periods instead of 45 s. A side effect: an acknowledged write is on disk, not
 *       only in the OS's cache, after about one period.
 *   <li><b>compaction</b>: when less than {@value #TARGET_FILL_PERCENT}% of the chunks' bytes are
 *       live, the live pages of the sparsest chunks (up to 1 MiB a pass) are rewritten and
 *       committed; when less than {@value #TARGET_FILL_PERCENT}% of the file is in use, chunks from
 *       its end are moved into the gaps and the file is truncated (up to 4 MiB a pass).
 * </ol>
 *
 * A pass with nothing to force to disk that changes nothing makes the database idle until it is
 * written again: an idle sidecar does no I/O. Measured with {@code GrowthBench} (test sources): 6
 * crash cycles of 1,500 one-row commits from 4 threads left 187 MiB (18x the rows' bytes) without
 * housekeeping and 109 MiB (11x) with {@code RETENTION_TIME=1000} alone; with it, 35 MiB (3.4x)
 * right after the last burst and 16 MiB (1.6x) after 3 s idle. These are H2's own operations (those
 * its background thread runs when {@code WRITE_DELAY} is above 0), called through its public
 * internal API, which ties this class to the H2 version in the parent pom.
 *
 * <p>Thread-safe. A pass that fails (the database was closed under it, a disk error) is logged once
 * and ends the housekeeping of that database; the database itself reports the error to its users.
 * {@link #close} before closing the database.
 */
public final class H2Housekeeping implements Housekeeping {

  /** How often each database gets a pass. */
  public static final long PERIOD_MILLIS = 250;

  /** Compact when less than this share of the chunks (or of the file) is live. */
  static final int TARGET_FILL_PERCENT = 80;

  private static final int REWRITE_BYTES = 1 << 20;
  private static final long MOVE_BYTES = 4L << 20;
  private static final System.Logger LOG = System.getLogger(H2Housekeeping.class.getName());
  private static final H2Housekeeping NONE = new H2Housekeeping(null, "none");

  private final MVStore store;
  private final String name;
  private ScheduledFuture<?> task;
  private MVStore.TxCounter pin;
  private long idleWrites = -1;
  private boolean closed;

  private H2Housekeeping(MVStore store, String name) {
    this.store = store;
    this.name = name;
  }

  /**
   * Starts the housekeeping of the database {@code connection} belongs to, when it is an embedded
   * H2 file database; otherwise (a server, an in-memory or read-only database, another driver)
   * returns a housekeeping that does nothing.
   *
   * @param name what log lines call the database
   */
  public static H2Housekeeping start(Connection connection, String name) throws SQLException {
    H2Housekeeping housekeeping = attach(connection, name);
    if (housekeeping.store != null) {
      housekeeping.task =
          Timer.INSTANCE.scheduleWithFixedDelay(
              housekeeping::pass, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }
    return housekeeping;
  }

  /** {@link #start} without the timer: the caller runs the passes ({@link #pass}); for tests. */
  static H2Housekeeping attach(Connection connection, String name) throws SQLException {
    requireNonNull(connection, "connection is null");
    requireNonNull(name, "name is null");
    MVStore store = fileStoreOf(connection);
    if (store == null) {
      return NONE;
    }
    H2Housekeeping housekeeping = new H2Housekeeping(store, name);
    // Pin before the first fsync, so nothing dead before this instant is overwritten until that
    // fsync (which also covers what an earlier, crashed process left in the OS's cache) is done.
    housekeeping.pin = store.registerVersionUsage();
    store.sync();
    store.setRetentionTime(0);
    return housekeeping;
  }

  /** Whether this housekeeping looks after a database (false for {@code NONE}). */
  boolean active() {
    return store != null;
  }

  /** The H2 file store behind an embedded H2 connection, or null. */
  private static MVStore fileStoreOf(Connection connection) throws SQLException {
    if (!connection.isWrapperFor(JdbcConnection.class)) {
      return null;
    }
    Session session = connection.unwrap(JdbcConnection.class).getSession();
    if (!(session instanceof SessionLocal local)) {
      return null;
    }
    Store store = local.getDatabase().getStore();
    if (store == null) {
      return null;
    }
    MVStore mvStore = store.getMvStore();
    if (mvStore.getFileStore() == null || mvStore.isReadOnly()) {
      return null;
    }
    return mvStore;
  }

  /**
   * One pass: fsync and compaction as the class says, when the file was written since the last pass
   * that changed nothing.
   *
   * @return whether the pass did anything
   */
  synchronized boolean pass() {
    if (closed || store == null || store.isClosed()) {
      return false;
    }
    try {
      FileStore<?> file = store.getFileStore();
      long writes = file.getWriteCount();
      boolean unsynced = pin.version != store.getCurrentVersion();
      if (!unsynced && writes == idleWrites) {
        return false;
      }
      if (unsynced) {
        MVStore.TxCounter next = store.registerVersionUsage();
        store.sync();
        store.deregisterVersionUsage(pin);
        pin = next;
        // H2 frees dead chunks when it commits; free what the old pin held now, in case no
        // commit follows (the last burst before the store goes idle).
        store.executeFilestoreOperation(file::dropUnusedChunks);
      }
      int liveInChunks = file.getChunksFillRate();
      int usedOfFile = file.getFillRate();
      if (liveInChunks < TARGET_FILL_PERCENT) {
        store.compact(TARGET_FILL_PERCENT, REWRITE_BYTES);
        store.commit();
      }
      if (file.getFillRate() < TARGET_FILL_PERCENT && file instanceof RandomAccessStore random) {
        random.compactMoveChunks(TARGET_FILL_PERCENT, MOVE_BYTES, store);
      }
      if (!unsynced
          && file.getWriteCount() == writes
          && file.getChunksFillRate() == liveInChunks
          && file.getFillRate() == usedOfFile) {
        idleWrites = writes;
      }
      return true;
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, () -> "H2 housekeeping of " + name + " stopped: " + e.getMessage(), e);
      stop();
      return false;
    }
  }

  /** Stops the passes (waits for a running one) and releases the pin. Idempotent. */
  @Override
  public void close() {
    stop();
  }

  private synchronized void stop() {
    if (closed) {
      return;
    }
    closed = true;
    if (task != null) {
      task.cancel(false);
    }
    if (pin != null && !store.isClosed()) {
      store.deregisterVersionUsage(pin);
    }
    pin = null;
  }

  @Override
  public String toString() {
    return "H2Housekeeping[" + name + (store == null ? ", inactive" : "") + "]";
  }

  /** The one daemon thread every database's passes run on, started on first use. */
  private static final class Timer {
    static final ScheduledExecutorService INSTANCE =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "h2-housekeeping");
              t.setDaemon(true);
              return t;
            });
  }
}
