package dev.memsidecar.jdbc.postgresql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.jdbc.Database;
import dev.memsidecar.jdbc.SharedLocks;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Locks that the processes of one PostgreSQL database respect ({@link SharedLocks}). */
class TestSharedLocks {
  private final PostgresCluster cluster = PostgresCluster.shared();
  private final String url = cluster.url(cluster.createDatabase());
  private final List<AutoCloseable> opened = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : opened.reversed()) {
      c.close();
    }
  }

  private Database open(String name) throws SQLException {
    Database db =
        Database.open(
            Database.Settings.forUrl(
                name, url, null, PostgresCluster.USER, PostgresCluster.PASSWORD, 2),
            TestPostgresDialect.schema());
    opened.add(db);
    return db;
  }

  @Test
  void readModifyWritesUnderOneNameFromTwoDatabasesLoseNothing() throws Exception {
    Database a = open("a");
    Database b = open("b");
    a.call(c -> update(c, "INSERT INTO notes (id, body, length) VALUES (1, '0', 1)"));
    SharedLocks la = SharedLocks.of(a, 4);
    SharedLocks lb = SharedLocks.of(b, 4);
    opened.add(la);
    opened.add(lb);
    assertTrue(la.excludesOtherProcesses());
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 6; t++) {
        Database db = t % 2 == 0 ? a : b;
        SharedLocks locks = t % 2 == 0 ? la : lb;
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 50; i++) {
                    // Read, then write in another statement and connection: without the lock,
                    // two of these interleave and an increment is lost.
                    locks.run(
                        "namespace:counter",
                        () -> {
                          try {
                            int n = db.call(c -> Integer.parseInt(body(c)));
                            Thread.onSpinWait();
                            db.call(
                                c ->
                                    update(
                                        c,
                                        "UPDATE notes SET body = '" + (n + 1) + "' WHERE id = 1"));
                            return null;
                          } catch (SQLException e) {
                            throw new IllegalStateException(e);
                          }
                        });
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get(2, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals("300", a.call(TestSharedLocks::body));
  }

  @Test
  void aLockHeldByAConnectionThatDiesIsReleased() throws Exception {
    Database a = open("a");
    Database b = open("b");
    SharedLocks la = SharedLocks.of(a, 1);
    SharedLocks lb = SharedLocks.of(b, 1);
    opened.add(la);
    opened.add(lb);
    AtomicBoolean holding = new AtomicBoolean();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<?> holder =
          pool.submit(
              () ->
                  la.run(
                      "ns",
                      () -> {
                        holding.set(true);
                        try {
                          Thread.sleep(60_000);
                        } catch (InterruptedException e) {
                          Thread.currentThread().interrupt();
                        }
                        return null;
                      }));
      while (!holding.get()) {
        Thread.sleep(5);
      }
      // The holder's session ends, as when its process is killed: the lock is free again.
      try (Connection c = cluster.connect(url.substring(url.lastIndexOf('/') + 1));
          Statement st = c.createStatement()) {
        st.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_locks"
                + " WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()");
      }
      long t0 = System.nanoTime();
      assertEquals("ran", lb.run("ns", () -> "ran"));
      assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(30));
      holder.cancel(true);
    } finally {
      pool.shutdownNow();
    }
  }

  private static String body(Connection c) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT body FROM notes WHERE id = 1");
        ResultSet rs = st.executeQuery()) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static Void update(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.executeUpdate(sql);
    }
    return null;
  }
}
