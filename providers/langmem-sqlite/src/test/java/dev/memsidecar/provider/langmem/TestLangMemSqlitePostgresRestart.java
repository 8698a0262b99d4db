package dev.memsidecar.provider.langmem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.jdbc.DatabaseUnreachableException;
import dev.memsidecar.jdbc.postgresql.PostgresCluster;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code langmem-sqlite} store on a PostgreSQL 15 server that restarts three times and crashes
 * once ({@code kill -9} of the postmaster) while writers put records: puts fail with UNAVAILABLE
 * naming the database while it is down, soon, and work again once it is back without reopening the
 * store; every put that returned is in the database afterwards. The server is this class's own
 * ({@link PostgresCluster#start}), not the shared one other test classes use.
 */
class TestLangMemSqlitePostgresRestart {
  private static final Namespace NS = Namespace.of("ws:workspace:memory");
  private static final int WRITERS = 6;
  private static final long FAILURE_BOUND_MILLIS = 5_000;
  private static final long RECOVERY_BOUND_MILLIS = 10_000;

  @TempDir Path dir;

  private PostgresCluster cluster;
  private String database;
  private MemoryStore store;

  @BeforeEach
  void open() {
    cluster = PostgresCluster.start();
    database = cluster.createDatabase();
    store =
        Fixtures.open(
            dir,
            Map.of(
                LangMemSqliteProvider.URL,
                cluster.url(database),
                LangMemSqliteProvider.USER,
                PostgresCluster.USER,
                LangMemSqliteProvider.PASSWORD,
                PostgresCluster.PASSWORD,
                LangMemSqliteProvider.POOL_SIZE,
                "4"));
  }

  @AfterEach
  void close() {
    try {
      store.close();
    } finally {
      cluster.close();
    }
  }

  private record Outcome(String id, long millis, MemoryException error) {}

  @Test
  void putsAcknowledgedAcrossThreeRestartsAndACrashAreAllThere() throws Exception {
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
                  String id = "r" + ids.incrementAndGet();
                  long start = System.nanoTime();
                  try {
                    store.put(Fixtures.record(NS, id, "note number " + id + " about restarts"));
                    long end = System.nanoTime();
                    outcomes.add(new Outcome(id, (end - start) / 1_000_000, null));
                    lastAcknowledgedEnd.accumulateAndGet(end, Math::max);
                    acknowledged.incrementAndGet();
                  } catch (MemoryException e) {
                    outcomes.add(new Outcome(id, (System.nanoTime() - start) / 1_000_000, e));
                    failed.incrementAndGet();
                    // A client's pause before it tries again, so the writers do not spin.
                    stop.await(10, TimeUnit.MILLISECONDS);
                  }
                }
                return null;
              }));
    }
    List<Long> recoveries = new ArrayList<>();
    try {
      for (String disruption : List.of("restart", "restart", "crash", "restart")) {
        int ackedBefore = acknowledged.get();
        await(() -> acknowledged.get() >= ackedBefore + 100, 30_000, "puts before " + disruption);
        if (disruption.equals("crash")) {
          // kill -9 of the postmaster. The server runs with fsync off, which loses nothing
          // committed here: the WAL of each commit is in the operating system's page cache, and
          // the machine does not crash.
          cluster.kill();
        } else {
          cluster.stop();
        }
        int failedBefore = failed.get();
        await(() -> failed.get() >= failedBefore + 3 * WRITERS, 30_000, "failures while down");
        cluster.restart();
        long back = System.nanoTime();
        await(() -> lastAcknowledgedEnd.get() > back, RECOVERY_BOUND_MILLIS, "puts after restart");
        recoveries.add(TimeUnit.NANOSECONDS.toMillis(lastAcknowledgedEnd.get() - back));
      }
    } finally {
      stop.countDown();
      writers.shutdown();
    }
    for (Future<?> f : running) {
      f.get(60, TimeUnit.SECONDS);
    }

    Set<String> stored = new HashSet<>();
    try (Connection c = cluster.connect(database);
        PreparedStatement st = c.prepareStatement("SELECT id FROM memory_records");
        ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        stored.add(rs.getString(1));
      }
    }
    String url = cluster.url(database);
    List<String> lost = new ArrayList<>();
    List<String> unexpected = new ArrayList<>();
    long slowest = 0;
    String sample = null;
    for (Outcome o : outcomes) {
      if (o.error() == null) {
        if (!stored.contains(o.id()) || store.get(NS, o.id()).isEmpty()) {
          lost.add(o.id());
        }
        continue;
      }
      MemoryException e = o.error();
      slowest = Math.max(slowest, o.millis());
      String message = e.getMessage();
      if (e.code() != MemoryException.Code.UNAVAILABLE
          || !message.contains(url)
          || !(message.contains("SQLSTATE 08") || message.contains("SQLSTATE 57P0"))
          || message.contains(PostgresCluster.PASSWORD)
          || !(e.getCause() instanceof DatabaseUnreachableException)) {
        unexpected.add(e.code() + ": " + message + " (" + e.getCause() + ")");
      }
      if (sample == null && e.getCause() instanceof DatabaseUnreachableException u) {
        sample = message + " / " + u.getMessage();
      }
    }
    System.out.printf(
        Locale.ROOT,
        "langmem-sqlite on a restarting PostgreSQL, %d writers: %d puts acknowledged, %d failed,"
            + " slowest failure %d ms, puts worked again %s ms after each restart; e.g. %s%n",
        WRITERS,
        acknowledged.get(),
        failed.get(),
        slowest,
        recoveries,
        sample);
    assertEquals(List.of(), lost, "acknowledged puts missing after the restarts");
    assertEquals(List.of(), unexpected, "failures other than UNAVAILABLE naming the database");
    assertTrue(slowest <= FAILURE_BOUND_MILLIS, "a put took " + slowest + " ms to fail");
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
