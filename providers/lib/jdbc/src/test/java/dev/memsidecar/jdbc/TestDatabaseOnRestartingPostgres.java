package dev.memsidecar.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.memsidecar.jdbc.postgresql.PostgresCluster;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link Database} on a PostgreSQL 15 server that restarts and crashes under it ({@link
 * PostgresCluster#stop}, {@link PostgresCluster#kill}): while the server is down every call fails
 * soon, as {@link DatabaseUnreachableException} naming the URL; the pool replaces the connections
 * the restart broke, and calls work again a few seconds after the server is back; no write that
 * returned is lost. The server is this class's own (not {@link PostgresCluster#shared}), since it
 * takes it down.
 */
class TestDatabaseOnRestartingPostgres {
  private static final int POOL_SIZE = 4;
  private static final int WRITERS = 8;

  /** The longest a call may take to fail while the server is down: {@link Database}'s bound. */
  private static final long FAILURE_BOUND_MILLIS = 5_000;

  /** The longest writes may take to work again once the server accepts connections. */
  private static final long RECOVERY_BOUND_MILLIS = 10_000;

  private static PostgresCluster cluster;
  private String url;
  private Database db;

  @BeforeAll
  static void startServer() {
    cluster = PostgresCluster.start();
  }

  @AfterAll
  static void stopServer() {
    cluster.close();
  }

  @BeforeEach
  void openDatabase() throws SQLException {
    if (!cluster.isRunning()) {
      cluster.restart();
    }
    url = cluster.url(cluster.createDatabase());
    db =
        Database.open(
            Database.Settings.forUrl(
                "restart db", url, null, PostgresCluster.USER, PostgresCluster.PASSWORD, POOL_SIZE),
            Samples.SCHEMA);
  }

  @AfterEach
  void closeDatabase() {
    db.close();
  }

  /** What one write through the database came to. */
  private record Outcome(int id, long startNanos, long endNanos, SQLException error) {
    boolean acknowledged() {
      return error == null;
    }

    long millis() {
      return TimeUnit.NANOSECONDS.toMillis(endNanos - startNanos);
    }
  }

  @Test
  void writersLoseNothingAcknowledgedAcrossThreeRestartsAndACrash() throws Exception {
    AtomicInteger ids = new AtomicInteger();
    Queue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
    AtomicInteger acknowledged = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    AtomicLong lastAcknowledgedEnd = new AtomicLong();
    CountDownLatch stop = new CountDownLatch(1);
    ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
    List<Future<?>> running = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      running.add(
          writers.submit(
              () -> {
                while (stop.getCount() > 0) {
                  int id = ids.incrementAndGet();
                  long start = System.nanoTime();
                  try {
                    db.transaction(c -> insert(c, id));
                    long end = System.nanoTime();
                    outcomes.add(new Outcome(id, start, end, null));
                    lastAcknowledgedEnd.accumulateAndGet(end, Math::max);
                    acknowledged.incrementAndGet();
                  } catch (SQLException e) {
                    outcomes.add(new Outcome(id, start, System.nanoTime(), e));
                    failed.incrementAndGet();
                    // A client's pause before it tries again, so the writers do not spin.
                    stop.await(10, TimeUnit.MILLISECONDS);
                  }
                }
                return null;
              }));
    }
    List<String> disruptions = List.of("restart", "restart", "crash", "restart");
    List<Long> recoveries = new ArrayList<>();
    List<Long> disruptionStarts = new ArrayList<>();
    try {
      for (String disruption : disruptions) {
        int ackedBefore = acknowledged.get();
        await(
            () -> acknowledged.get() >= ackedBefore + 200,
            30_000,
            "200 writes before " + disruption);
        disruptionStarts.add(System.nanoTime());
        if (disruption.equals("crash")) {
          // kill -9 of the postmaster. With fsync off nothing committed is lost all the same: the
          // WAL of each commit is in the operating system's page cache, which outlives the server.
          cluster.kill();
        } else {
          cluster.stop();
        }
        int failedWhileDown = failed.get();
        await(() -> failed.get() >= failedWhileDown + 3 * WRITERS, 30_000, "failures while down");
        cluster.restart();
        long back = System.nanoTime();
        await(
            () -> lastAcknowledgedEnd.get() > back,
            RECOVERY_BOUND_MILLIS,
            "writes after " + disruption);
        recoveries.add(TimeUnit.NANOSECONDS.toMillis(lastAcknowledgedEnd.get() - back));
      }
      int ackedAfter = acknowledged.get();
      await(() -> acknowledged.get() >= ackedAfter + 200, 30_000, "200 writes at the end");
    } finally {
      stop.countDown();
      writers.shutdown();
    }
    for (Future<?> f : running) {
      f.get(60, TimeUnit.SECONDS);
    }

    Set<Integer> stored = new HashSet<>();
    try (Connection c = cluster.connect(db.url().substring(db.url().lastIndexOf('/') + 1));
        PreparedStatement st = c.prepareStatement("SELECT id FROM notes");
        ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        stored.add(rs.getInt(1));
      }
    }
    List<Integer> lost = new ArrayList<>();
    List<Integer> failedButStored = new ArrayList<>();
    List<Outcome> unexpected = new ArrayList<>();
    List<Outcome> slow = new ArrayList<>();
    int unknown = 0;
    int unknownStored = 0;
    long slowestFailure = 0;
    int[] lostConnections = new int[disruptions.size()];
    for (Outcome o : outcomes) {
      if (o.acknowledged()) {
        if (!stored.contains(o.id())) {
          lost.add(o.id());
        }
        continue;
      }
      if (!(o.error() instanceof DatabaseUnreachableException e)) {
        unexpected.add(o);
        continue;
      }
      slowestFailure = Math.max(slowestFailure, o.millis());
      if (o.millis() > FAILURE_BOUND_MILLIS) {
        slow.add(o);
      }
      assertTrue(e.getMessage().contains(url), e.getMessage());
      assertTrue(e.getMessage().contains("SQLSTATE "), e.getMessage());
      assertFalse(e.getMessage().contains(PostgresCluster.PASSWORD), e.getMessage());
      if (e.outcomeUnknown()) {
        unknown++;
        unknownStored += stored.contains(o.id()) ? 1 : 0;
      } else if (stored.contains(o.id())) {
        // Failed before its commit was sent: the server cannot have committed it.
        failedButStored.add(o.id());
      }
      if (e.getMessage().contains("lost the connection")) {
        int window = disruptionStarts.size() - 1;
        // By when it failed: a call may have started before the disruption that broke it.
        while (window > 0 && disruptionStarts.get(window) > o.endNanos()) {
          window--;
        }
        lostConnections[Math.max(0, window)]++;
      }
    }
    System.out.printf(
        Locale.ROOT,
        "restarting PostgreSQL under %d writers: %d acknowledged, %d failed (%d with an unknown"
            + " outcome, %d of them committed), slowest failure %d ms, recovery after each restart"
            + " %s ms, lost connections per disruption %s%n",
        WRITERS,
        acknowledged.get(),
        failed.get(),
        unknown,
        unknownStored,
        slowestFailure,
        recoveries,
        java.util.Arrays.toString(lostConnections));
    assertEquals(List.of(), lost, "acknowledged writes missing after the restarts");
    assertEquals(
        List.of(), failedButStored, "writes that failed before their commit but are there");
    assertEquals(List.of(), unexpected.stream().map(o -> o.error().toString()).toList());
    assertEquals(List.of(), slow.stream().map(o -> o.millis() + " ms: " + o.error()).toList());
    for (int n : lostConnections) {
      // Each pooled connection a restart broke fails at most the one call that found it broken.
      assertTrue(n <= POOL_SIZE, "lost connections per disruption: " + n);
    }
  }

  @Test
  void whileTheServerIsDownCallsFailSoonSayingItIsUnreachableThenWorkAgain() throws Exception {
    db.call(c -> insert(c, 1));
    cluster.stop();
    try {
      List<Long> failures = new ArrayList<>();
      DatabaseUnreachableException last = null;
      for (int i = 0; i < 10; i++) {
        long start = System.nanoTime();
        last = assertThrows(DatabaseUnreachableException.class, () -> db.call(c -> insert(c, 2)));
        failures.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        assertTrue(last.getMessage().contains(url), last.getMessage());
        assertFalse(last.outcomeUnknown(), last.getMessage());
      }
      System.out.println("calls while the server is down failed after " + failures + " ms");
      for (long millis : failures) {
        assertTrue(millis <= FAILURE_BOUND_MILLIS, failures.toString());
      }
      // The pool has tried to connect by now: the message says so, with the driver's line.
      assertTrue(
          last.getMessage().startsWith("restart db: the database at " + url + " is unreachable: "),
          last.getMessage());
      // The pool's last attempt: refused (08001), or made while the server was shutting down
      // (57P03 "the database system is shutting down"; 08001 if it closed the socket instead).
      assertTrue(
          last.getSQLState().startsWith("08") || last.getSQLState().equals("57P03"),
          last.getMessage());
      assertFalse(last.getMessage().contains(PostgresCluster.PASSWORD), last.getMessage());
    } finally {
      cluster.restart();
    }
    long back = System.nanoTime();
    long deadline = back + TimeUnit.MILLISECONDS.toNanos(RECOVERY_BOUND_MILLIS);
    while (true) {
      try {
        db.call(c -> insert(c, 3));
        break;
      } catch (DatabaseUnreachableException e) {
        if (System.nanoTime() > deadline) {
          fail("no write worked within " + RECOVERY_BOUND_MILLIS + " ms of the restart", e);
        }
        Thread.sleep(20);
      }
    }
    System.out.println(
        "the first write worked "
            + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - back)
            + " ms after the server was back");
    assertEquals(
        List.of("1", "3"), db.call(c -> Samples.column(c, "SELECT id FROM notes ORDER BY id")));
  }

  @Test
  void aCommitWhoseConnectionIsLostIsAnErrorWithAnUnknownOutcome() throws Exception {
    DatabaseUnreachableException e =
        assertThrows(
            DatabaseUnreachableException.class,
            () ->
                db.transaction(
                    c -> {
                      insert(c, 7);
                      terminate(backendPid(c));
                      return null;
                    }));
    assertTrue(e.outcomeUnknown(), e.getMessage());
    assertTrue(
        e.getMessage()
            .contains("during a commit, so whether the transaction was committed is unknown"),
        e.getMessage());
    assertTrue(e.getMessage().contains(url), e.getMessage());
    // The broken connection left the pool: the next call gets a good one.
    assertEquals(List.of(), db.call(c -> Samples.column(c, "SELECT id FROM notes")));
  }

  @Test
  void aConnectionLostOutsideACommitIsAnErrorWithAKnownOutcome() throws Exception {
    DatabaseUnreachableException e =
        assertThrows(
            DatabaseUnreachableException.class,
            () ->
                db.transaction(
                    c -> {
                      insert(c, 8);
                      terminate(backendPid(c));
                      return insert(c, 9);
                    }));
    assertFalse(e.outcomeUnknown(), e.getMessage());
    assertTrue(
        e.getMessage()
            .startsWith("restart db: lost the connection to the database at " + url + ": "),
        e.getMessage());
    // The server's "terminating connection due to administrator command", or the socket's end.
    assertTrue(e.getSQLState().equals("57P01") || e.getSQLState().startsWith("08"), e.getMessage());
    assertEquals(List.of(), db.call(c -> Samples.column(c, "SELECT id FROM notes")));
  }

  @Test
  void onPostgresqlEveryConnectionIsThePools() throws Exception {
    // Hold every pooled connection at once: a connection held apart would make one more.
    CountDownLatch holding = new CountDownLatch(POOL_SIZE);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService callers = Executors.newFixedThreadPool(POOL_SIZE);
    try {
      List<Future<Void>> calls = new ArrayList<>();
      for (int i = 0; i < POOL_SIZE; i++) {
        calls.add(
            callers.submit(
                () ->
                    db.call(
                        c -> {
                          holding.countDown();
                          try {
                            release.await();
                          } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                          }
                          return null;
                        })));
      }
      assertTrue(holding.await(30, TimeUnit.SECONDS));
      String database = url.substring(url.lastIndexOf('/') + 1);
      try (Connection c = cluster.connect("postgres");
          PreparedStatement st =
              c.prepareStatement("SELECT count(*) FROM pg_stat_activity WHERE datname = ?")) {
        st.setString(1, database);
        try (ResultSet rs = st.executeQuery()) {
          assertTrue(rs.next());
          assertEquals(POOL_SIZE, rs.getInt(1));
        }
      }
      release.countDown();
      for (Future<Void> f : calls) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      release.countDown();
      callers.shutdownNow();
    }
  }

  private static Integer insert(Connection c, int id) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("INSERT INTO notes (id, body) VALUES (?, ?)")) {
      st.setInt(1, id);
      st.setString(2, "note " + id);
      return st.executeUpdate();
    }
  }

  private static int backendPid(Connection c) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT pg_backend_pid()");
        ResultSet rs = st.executeQuery()) {
      assertTrue(rs.next());
      return rs.getInt(1);
    }
  }

  /** Ends the session {@code pid} from another connection, and waits until it is gone. */
  private static void terminate(int pid) throws SQLException {
    try (Connection admin = cluster.connect("postgres");
        PreparedStatement st = admin.prepareStatement("SELECT pg_terminate_backend(?, 10000)")) {
      st.setInt(1, pid);
      try (ResultSet rs = st.executeQuery()) {
        assertTrue(rs.next() && rs.getBoolean(1), "session " + pid + " did not end");
      }
    }
  }

  private static void await(BooleanSupplier condition, long millis, String what)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("waited " + millis + " ms for " + what);
      }
      Thread.sleep(10);
    }
  }
}
