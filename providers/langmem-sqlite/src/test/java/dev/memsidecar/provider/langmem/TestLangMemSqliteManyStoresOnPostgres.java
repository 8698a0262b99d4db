package dev.memsidecar.provider.langmem;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.MemoryStore;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.ScoredRecord;
import dev.memsidecar.api.SearchQuery;
import dev.memsidecar.jdbc.Database;
import dev.memsidecar.jdbc.postgresql.PostgresCluster;
import dev.memsidecar.jdbc.postgresql.PostgresDialect;
import dev.memsidecar.jdbc.postgresql.PostgresListener;
import dev.memsidecar.toolkit.HashEmbedder;
import dev.memsidecar.toolkit.HybridIndex;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several stores on one PostgreSQL database, as the sidecars of several pods would be: each keeps
 * its own in-memory indexes, which the change log ({@link ChangeFeed}) keeps fresh with the others'
 * writes. Each store here is opened the way a sidecar opens it (its own pool, its own listener
 * connection), in one JVM.
 */
class TestLangMemSqliteManyStoresOnPostgres {
  private static final Namespace NS = Namespace.of("ws:workspace:memory");

  /** The bound a write of one store is found within by another's search (notifications on). */
  private static final Duration VISIBLE_WITHIN = Duration.ofSeconds(1);

  /** The bound when no notification arrives: the poll, plus a catch-up's own time. */
  private static final Duration POLLED_WITHIN = ChangeFeed.POLL.plusSeconds(3);

  @TempDir Path dir;

  private PostgresCluster cluster;
  private String database;
  private final List<MemoryStore> opened = new ArrayList<>();

  @BeforeEach
  void newDatabase() {
    cluster = PostgresCluster.shared();
    database = cluster.createDatabase();
  }

  @AfterEach
  void closeStores() {
    for (MemoryStore s : opened) {
      s.close();
    }
  }

  private LangMemSqliteStore open() {
    return open(new HashEmbedder());
  }

  private LangMemSqliteStore open(Embedder embedder) {
    LangMemSqliteStore store =
        (LangMemSqliteStore)
            Fixtures.open(
                dir,
                Map.of(
                    LangMemSqliteProvider.URL,
                    cluster.url(database),
                    LangMemSqliteProvider.USER,
                    PostgresCluster.USER,
                    LangMemSqliteProvider.PASSWORD,
                    PostgresCluster.PASSWORD),
                embedder);
    opened.add(store);
    return store;
  }

  @Test
  void aWriteOfOneStoreIsFoundBySearchOfTheOthersWithinASecond() {
    LangMemSqliteStore a = open();
    LangMemSqliteStore b = open();
    LangMemSqliteStore c = open();
    // The readers have the namespace's index in memory before the writes, as a serving sidecar has.
    assertTrue(b.search(NS, query("anything")).isEmpty());
    assertTrue(c.search(NS, query("anything")).isEmpty());
    int writes = 300;
    long[] lagB = new long[writes];
    long[] lagC = new long[writes];
    for (int i = 0; i < writes; i++) {
      String token = token(i);
      String id = "r" + i;
      a.put(Fixtures.record(NS, id, "fact number " + i + " holds " + token));
      long written = System.nanoTime();
      lagB[i] = awaitFound(b, token, id, written);
      lagC[i] = awaitFound(c, token, id, written);
    }
    Arrays.sort(lagB);
    Arrays.sort(lagC);
    System.out.printf(
        Locale.ROOT,
        "visibility lag over %d writes: store B p50 %.2f ms, p99 %.2f ms, max %.2f ms;"
            + " store C p50 %.2f ms, p99 %.2f ms, max %.2f ms%n",
        writes,
        lagB[writes / 2] / 1e6,
        lagB[writes * 99 / 100] / 1e6,
        lagB[writes - 1] / 1e6,
        lagC[writes / 2] / 1e6,
        lagC[writes * 99 / 100] / 1e6,
        lagC[writes - 1] / 1e6);
    // Every write was read back from the log and applied (not found by a reload of the index).
    assertTrue(b.feed().applied() >= writes, "store B applied " + b.feed().applied());
  }

  @Test
  void afterRefreshASearchFindsEveryWriteAnotherStoreAcknowledgedBefore() throws Exception {
    LangMemSqliteStore a = open();
    LangMemSqliteStore b = open();
    assertTrue(b.search(NS, query("anything")).isEmpty());
    for (int i = 0; i < 100; i++) {
      a.put(Fixtures.record(NS, "now" + i, "fact number " + i + " holds " + token(i)));
      b.refresh(NS);
      assertTrue(
          ids(b.search(NS, query(token(i)))).contains("now" + i),
          "B's search right after A's put returned finds write " + i);
    }
    try (Connection slow = cluster.connect(database)) {
      // A seq drawn first and committed after a later one, and no notification: the search right
      // after the commit still finds it (B kept the seq as a gap and reads it again).
      slow.setAutoCommit(false);
      upsertRecord(slow, Fixtures.record(NS, "late", "committed late " + token(1000)));
      logChange(slow, "late");
      a.put(Fixtures.record(NS, "early", "committed early " + token(1001)));
      b.refresh(NS);
      assertTrue(ids(b.search(NS, query(token(1001)))).contains("early"));
      slow.commit();
      b.refresh(NS);
      assertTrue(ids(b.search(NS, query(token(1000)))).contains("late"));
    }
  }

  /** Waits until {@code reader}'s search for {@code token} finds {@code id}; the lag in nanos. */
  private static long awaitFound(LangMemSqliteStore reader, String token, String id, long since) {
    long deadline = since + VISIBLE_WITHIN.toNanos();
    while (true) {
      if (ids(reader.search(NS, query(token))).contains(id)) {
        return System.nanoTime() - since;
      }
      if (System.nanoTime() - deadline > 0) {
        fail(id + " was not found by another store's search within " + VISIBLE_WITHIN);
      }
      LockSupport.parkNanos(100_000);
    }
  }

  @Test
  void updatesDeletesSupersedesAndVectorsPropagate() throws Exception {
    LangMemSqliteStore a = open();
    LangMemSqliteStore b = open();
    MemoryRecord changed = Fixtures.record(NS, "changed", "the deploy target is alpha");
    MemoryRecord superseded = Fixtures.record(NS, "superseded", "the build tool is gradle");
    MemoryRecord deleted = Fixtures.record(NS, "deleted", "the wiki lives on confluence");
    a.put(changed);
    a.put(superseded);
    a.put(deleted);
    // B loads the namespace after those writes, then sees the changes that follow.
    await(() -> ids(b.search(NS, query("alpha"))).contains("changed"), POLLED_WITHIN, "B loads");

    MemoryRecord newer =
        changed.toBuilder()
            .content("the deploy target is beta")
            .times(Fixtures.T0.plusSeconds(1))
            .build();
    a.put(newer);
    a.put(
        superseded.toBuilder()
            .status(MemoryStatus.SUPERSEDED)
            .times(Fixtures.T0.plusSeconds(1))
            .build());
    assertTrue(a.delete(NS, "deleted"));

    await(
        () -> {
          HybridIndex index = b.loadedIndex(NS);
          return index.size() == 1
              && index.vectorIfSameText(newer) != null
              && index.vectorIfSameText(superseded) == null
              && index.vectorIfSameText(deleted) == null;
        },
        VISIBLE_WITHIN,
        "B holds the update, and neither the superseded nor the deleted record");
    assertEquals(List.of("changed"), List.copyOf(ids(b.search(NS, query("beta")))));

    // The vector A's worker made behind the update reaches B as a change of its own.
    await(() -> a.pendingVectors().records() == 0, POLLED_WITHIN, "A made its vectors");
    a.search(NS, query("beta")); // loads A's index
    float[] madeByA = a.loadedIndex(NS).vectorIfSameText(newer);
    assertNotNull(madeByA);
    assertFalse(HybridIndex.isZero(madeByA));
    await(
        () -> Arrays.equals(madeByA, b.loadedIndex(NS).vectorIfSameText(newer)),
        VISIBLE_WITHIN,
        "B holds A's vector of the updated record");
    assertArrayEquals(madeByA, b.loadedIndex(NS).vectorIfSameText(newer));
  }

  @Test
  void aRecordAnotherStoreWroteIsFoundByItsWordsBeforeItsVectorLands() throws Exception {
    Fixtures.GatedEmbedder embedderA = new Fixtures.GatedEmbedder();
    LangMemSqliteStore a = open(embedderA);
    LangMemSqliteStore b = open();
    try {
      // B holds records close in meaning to the query, with their vectors.
      for (int i = 0; i < 40; i++) {
        b.put(Fixtures.record(NS, "r" + i, "note " + i + " on the zanzibar ferry timetable"));
      }
      await(() -> b.pendingVectors().records() == 0, POLLED_WITHIN, "B made its vectors");
      assertEquals(5, b.search(NS, byMeaning("zanzibar ferry")).size()); // B's index is loaded

      // A writes a record whose vector A's worker cannot make yet: B has it without one.
      a.put(Fixtures.record(NS, "fresh", "the zanzibar ferry"));
      await(
          () -> firstId(b.search(NS, byMeaning("zanzibar ferry"))).equals("fresh"),
          VISIBLE_WITHIN,
          "B's search by meaning puts A's record first, by its words");
      assertEquals(0, b.pendingVectors().records(), "B does not wait for A's vector");
    } finally {
      embedderA.open.countDown();
    }
  }

  @Test
  void aVectorMadeForARecordAnotherStoreChangedMeanwhileLeavesNothingWaiting() throws Exception {
    Fixtures.GatedEmbedder embedderA = new Fixtures.GatedEmbedder();
    Fixtures.GatedEmbedder embedderB = new Fixtures.GatedEmbedder();
    LangMemSqliteStore a = open(embedderA);
    LangMemSqliteStore b = open(embedderB);
    try {
      MemoryRecord r = Fixtures.record(NS, "r", "the release train leaves on thursday");
      a.put(r); // its vector waits: A's embedder is shut
      // B loads the namespace while the record has no vector: B's worker is to make it too.
      assertEquals(Set.of("r"), ids(b.search(NS, query("release train"))));
      assertEquals(1, b.pendingVectors().records());

      // A supersedes it before B's vector lands: B's vector is not written.
      a.put(
          r.toBuilder().status(MemoryStatus.SUPERSEDED).times(Fixtures.T0.plusSeconds(1)).build());
      embedderB.open.countDown();
      await(
          () -> b.pendingVectors().records() == 0,
          POLLED_WITHIN,
          "B waits for no vector once its own was not written");

      // So a search by meaning on B does not wait for it (it waited its whole bound before).
      long started = System.nanoTime();
      b.search(NS, byMeaning("release train"));
      long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      assertTrue(
          waited < LangMemSqliteStore.SEARCH_WAIT_MILLIS / 2,
          "the search waited " + waited + " ms");
    } finally {
      embedderA.open.countDown();
      embedderB.open.countDown();
    }
    await(() -> a.pendingVectors().records() == 0, POLLED_WITHIN, "A waits for nothing either");
  }

  @Test
  void writesMadeWhileTheListenerIsDownAreFoundAndItReconnects() throws Exception {
    LangMemSqliteStore a = open();
    LangMemSqliteStore b = open();
    assertTrue(b.search(NS, query("anything")).isEmpty());
    await(() -> b.feed().listenerConnects() == 1, POLLED_WITHIN, "B listens");
    // From another database: a database's own connections cannot close it to new ones.
    try (Connection admin = cluster.connect("postgres")) {
      // No new connection to the database for a while: the listeners cannot come back at once.
      execute(admin, "ALTER DATABASE \"" + database + "\" WITH ALLOW_CONNECTIONS false");
      try {
        assertEquals(2, terminateListeners(admin));
        for (int i = 0; i < 20; i++) {
          a.put(Fixtures.record(NS, "down" + i, "written while down " + token(i)));
        }
        // Notifications of these were sent to nobody: the poll finds them, over B's pool.
        await(
            () -> ids(b.search(NS, query(token(19)))).contains("down19"),
            POLLED_WITHIN,
            "B's poll finds a write made while its listener was down");
        assertEquals(1, b.feed().listenerConnects(), "B's listener is still down");
      } finally {
        execute(admin, "ALTER DATABASE \"" + database + "\" WITH ALLOW_CONNECTIONS true");
      }
      await(() -> b.feed().listenerConnects() == 2, POLLED_WITHIN, "B's listener reconnects");
      await(() -> listeners(admin) == 2, POLLED_WITHIN, "both listeners are back");
      for (int i = 0; i < 20; i++) {
        String id = "down" + i;
        assertTrue(ids(b.search(NS, query(token(i)))).contains(id), id);
      }

      // Killed again, with connections allowed: back within the backoff, and a write made just
      // then is found by the catch-up that follows the reconnect (or by a notification).
      assertEquals(2, terminateListeners(admin));
      a.put(Fixtures.record(NS, "after", "written just after the kill " + token(99)));
      await(
          () -> ids(b.search(NS, query(token(99)))).contains("after"),
          POLLED_WITHIN,
          "B finds a write made just after its listener was killed");
      await(() -> b.feed().listenerConnects() == 3, POLLED_WITHIN, "B's listener reconnects");
    }
  }

  @Test
  void aWriteWithoutANotificationIsFoundByThePoll() throws Exception {
    LangMemSqliteStore b = open();
    assertTrue(b.search(NS, query("anything")).isEmpty());
    long caughtUp = b.feed().catchUps();
    try (Connection c = cluster.connect(database)) {
      // A writer that logs its change but notifies nobody (as if the notification were lost).
      Database.inTransaction(
          c,
          () -> {
            upsertRecord(c, Fixtures.record(NS, "silent", "a silent write " + token(1)));
            logChange(c, "silent");
            return null;
          });
    }
    await(
        () -> ids(b.search(NS, query(token(1)))).contains("silent"),
        POLLED_WITHIN,
        "the poll finds a write that sent no notification");
    // The catch-up that applied it counts itself once it has read the whole log.
    await(() -> b.feed().catchUps() > caughtUp, POLLED_WITHIN, "the poll counts as a catch-up");
  }

  @Test
  void aChangeCommittedAfterALaterOneIsNotMissed() throws Exception {
    LangMemSqliteStore a = open();
    LangMemSqliteStore b = open();
    assertTrue(b.search(NS, query("anything")).isEmpty());
    try (Connection slow = cluster.connect(database)) {
      slow.setAutoCommit(false);
      // The slow writer draws its seq first and commits last.
      upsertRecord(slow, Fixtures.record(NS, "late", "committed late " + token(1)));
      long lateSeq = logChange(slow, "late");
      a.put(Fixtures.record(NS, "early", "committed early " + token(2)));
      await(
          () -> ids(b.search(NS, query(token(2)))).contains("early"),
          VISIBLE_WITHIN,
          "B finds the write committed first");
      // B has read past the slow writer's seq, which it keeps as a gap.
      await(() -> b.loadedIndex(NS).size() == 1, VISIBLE_WITHIN, "B read the early write");
      notify(slow);
      slow.commit();
      assertTrue(lateSeq > 0);
      await(
          () -> ids(b.search(NS, query(token(1)))).contains("late"),
          VISIBLE_WITHIN,
          "B finds the write whose seq is below one it had read");
    }
  }

  @Test
  void concurrentWritersOnThreeStoresLeaveEveryIndexEqualToTheTable() throws Exception {
    List<LangMemSqliteStore> stores = List.of(open(), open(), open());
    for (LangMemSqliteStore s : stores) {
      assertTrue(s.search(NS, query("anything")).isEmpty());
    }
    long seed = new Random().nextLong();
    int threadsPerStore = 3;
    int opsPerThread = 150;
    ExecutorService pool = Executors.newFixedThreadPool(stores.size() * threadsPerStore);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int s = 0; s < stores.size(); s++) {
        for (int t = 0; t < threadsPerStore; t++) {
          LangMemSqliteStore store = stores.get(s);
          Random random = new Random(seed + s * 31L + t);
          int writer = s * 10 + t;
          done.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < opsPerThread; i++) {
                      String id = "id" + random.nextInt(40);
                      int op = random.nextInt(10);
                      if (op < 6) {
                        store.put(
                            Fixtures.record(
                                NS, id, "writer " + writer + " op " + i + " " + token(i)));
                      } else if (op < 8) {
                        store.put(
                            Fixtures.record(NS, id, "superseded by writer " + writer).toBuilder()
                                .status(MemoryStatus.SUPERSEDED)
                                .build());
                      } else {
                        store.delete(NS, id);
                      }
                    }
                    return null;
                  }));
        }
      }
      for (Future<?> f : done) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    Map<String, MemoryRecord> table = activeRecords();
    for (LangMemSqliteStore s : stores) {
      await(
          () -> sameAsTable(s, table),
          POLLED_WITHIN,
          "every index equals the table (seed " + seed + ")");
      assertEquals(table.size(), s.loadedIndex(NS).size(), "seed " + seed);
    }
  }

  @Test
  void theLogKeepsTenMinutes() throws SQLException {
    LangMemSqliteStore a = open();
    a.put(Fixtures.record(NS, "fresh", "a fresh change"));
    try (Connection c = cluster.connect(database)) {
      execute(
          c,
          "INSERT INTO memory_changes (namespace, record_id, changed_at) VALUES"
              + " ('ws:workspace:memory', 'old', clock_timestamp() - INTERVAL '11 minutes')");
      assertEquals(1, a.feed().prune());
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT DISTINCT record_id FROM memory_changes")) {
        assertTrue(rs.next());
        assertEquals("fresh", rs.getString(1));
        assertFalse(rs.next());
      }
    }
  }

  @Test
  void onH2NothingIsLoggedAndNothingListens() throws SQLException {
    try (MemoryStore h2 = Fixtures.open(dir)) {
      h2.put(Fixtures.record(NS, "r1", "an H2 record"));
      assertNull(((LangMemSqliteStore) h2).feed());
    }
    try (Connection c = Fixtures.connect(dir);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM memory_changes")) {
      rs.next();
      assertEquals(0, rs.getInt(1));
    }
  }

  /** Whether {@code s}'s index holds exactly the ACTIVE records of {@code table}, same texts. */
  private static boolean sameAsTable(LangMemSqliteStore s, Map<String, MemoryRecord> table) {
    HybridIndex index = s.loadedIndex(NS);
    if (index == null || index.size() != table.size()) {
      return false;
    }
    for (MemoryRecord r : table.values()) {
      if (index.vectorIfSameText(r) == null) {
        return false;
      }
    }
    return true;
  }

  private Map<String, MemoryRecord> activeRecords() throws SQLException {
    Map<String, MemoryRecord> out = new HashMap<>();
    try (Connection c = cluster.connect(database);
        PreparedStatement st =
            c.prepareStatement(
                "SELECT "
                    + RecordRows.selectList("")
                    + " FROM "
                    + RecordRows.TABLE
                    + " WHERE status = 'ACTIVE'");
        ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        MemoryRecord r = RecordRows.read(rs, 1);
        out.put(r.id(), r);
      }
    }
    return out;
  }

  private static void upsertRecord(Connection c, MemoryRecord r) throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            new PostgresDialect().upsert(RecordRows.TABLE, RecordRows.COLUMNS, RecordRows.KEY))) {
      RecordRows.bind(st, r);
      st.executeUpdate();
    }
  }

  private static long logChange(Connection c, String id) throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO memory_changes (namespace, record_id) VALUES (?, ?) RETURNING seq")) {
      st.setString(1, NS.value());
      st.setString(2, id);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static void notify(Connection c) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT pg_notify(?, 'test')")) {
      st.setString(1, ChangeFeed.channel(c));
      st.executeQuery().close();
    }
  }

  private int terminateListeners(Connection admin) throws SQLException {
    try (PreparedStatement st =
        admin.prepareStatement(
            "SELECT COUNT(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity"
                + " WHERE application_name = ? AND datname = ?")) {
      st.setString(1, PostgresListener.APPLICATION_NAME);
      st.setString(2, database);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  private int listeners(Connection admin) {
    try (PreparedStatement st =
        admin.prepareStatement(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = ? AND datname = ?")) {
      st.setString(1, PostgresListener.APPLICATION_NAME);
      st.setString(2, database);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }

  /** Waits for {@code condition}, checking every millisecond, failing after {@code within}. */
  private static void await(BooleanSupplier condition, Duration within, String what) {
    long deadline = System.nanoTime() + within.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        fail("not within " + within + ": " + what);
      }
      LockSupport.parkNanos(1_000_000);
    }
  }

  /** A word that occurs in one record only. */
  private static String token(int i) {
    StringBuilder out = new StringBuilder("zq");
    int n = i;
    do {
      out.append((char) ('a' + n % 26));
      n /= 26;
    } while (n > 0);
    return out.append("xk").toString();
  }

  private static Set<String> ids(List<ScoredRecord> hits) {
    return Set.copyOf(hits.stream().map(h -> h.record().id()).toList());
  }

  private static SearchQuery query(String text) {
    return new SearchQuery(text, null, 5, Set.of(), List.of(), 0f, Fixtures.T0.plusSeconds(60));
  }

  private static String firstId(List<ScoredRecord> hits) {
    return hits.isEmpty() ? "" : hits.get(0).record().id();
  }

  private static SearchQuery byMeaning(String text) {
    return new SearchQuery(
        text,
        new HashEmbedder().embed(text),
        5,
        Set.of(),
        List.of(),
        0f,
        Fixtures.T0.plusSeconds(60));
  }
}
