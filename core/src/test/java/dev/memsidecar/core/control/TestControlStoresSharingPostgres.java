package dev.memsidecar.core.control;

import static dev.memsidecar.core.control.ControlFixtures.T0;
import static dev.memsidecar.core.control.ControlFixtures.result;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.core.RequestOptions;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.config.Maintenance;
import dev.memsidecar.core.config.MaintenanceSchedule;
import dev.memsidecar.core.config.SessionConfig;
import dev.memsidecar.core.events.EventBus;
import dev.memsidecar.core.learning.RunReceipt;
import dev.memsidecar.core.learning.SkillVersion;
import dev.memsidecar.core.maintenance.MaintenancePass;
import dev.memsidecar.core.maintenance.MaintenanceService;
import dev.memsidecar.core.maintenance.MaintenanceTarget;
import dev.memsidecar.core.run.DecisionEntry;
import dev.memsidecar.core.run.DecisionQuery;
import dev.memsidecar.core.run.EndRunResult;
import dev.memsidecar.core.run.RunSnapshot;
import dev.memsidecar.core.sessions.MessageRole;
import dev.memsidecar.core.sessions.SessionHit;
import dev.memsidecar.core.sessions.SessionKey;
import dev.memsidecar.core.sessions.SessionMessage;
import dev.memsidecar.core.sessions.SessionService;
import dev.memsidecar.core.sessions.SessionStore;
import dev.memsidecar.core.toolrules.ToolRule;
import dev.memsidecar.toolkit.HashEmbedder;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Several control stores on one PostgreSQL database, as several sidecars (one per agent pod) share
 * one: each test opens its stores on a new database ({@link PostgresControl}). Each store has its
 * own pool and its own in-process locks, as a store in another process would.
 */
class TestControlStoresSharingPostgres {
  private static final Scope ALICE = new Scope("acme", "alice", "coder", "s1");
  private static final int STORES = 3;

  private final PostgresControl pg = new PostgresControl();
  private final List<SqlControlStore> opened = new ArrayList<>();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void close() {
    pool.shutdownNow();
    opened.forEach(SqlControlStore::close);
  }

  private SqlControlStore open() {
    SqlControlStore s = pg.open();
    synchronized (opened) {
      opened.add(s);
    }
    return s;
  }

  private List<SqlControlStore> openAll(int n) {
    List<SqlControlStore> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(open());
    }
    return out;
  }

  /** Runs {@code tasks} at once (released together) and returns their results in order. */
  private <T> List<T> atOnce(List<Callable<T>> tasks) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    List<Future<T>> futures = new ArrayList<>();
    for (Callable<T> t : tasks) {
      futures.add(
          pool.submit(
              () -> {
                go.await();
                return t.call();
              }));
    }
    go.countDown();
    List<T> out = new ArrayList<>();
    for (Future<T> f : futures) {
      out.add(f.get());
    }
    return out;
  }

  @Test
  void storesOpeningANewDatabaseAtOnceMigrateItOnce() throws Exception {
    List<Callable<SqlControlStore>> opens = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      opens.add(this::open);
    }
    List<SqlControlStore> stores = atOnce(opens);
    try (Connection c = pg.connect()) {
      assertEquals(
          List.of(
              "1 SQL", "2 SQL", "3 SQL", "4 SQL", "5 SQL", "6 SQL", "7 SQL", "8 SQL", "9 JDBC",
              "10 SQL"),
          column(
              c,
              "SELECT version || ' ' || type FROM control_schema_history"
                  + " WHERE version IS NOT NULL ORDER BY installed_rank"));
      assertEquals(List.of("10"), column(c, "SELECT version FROM control_schema"));
      // Version 9: the postings are searched from the index by term, under no primary key.
      assertEquals(
          List.of("session_terms_by_message", "session_terms_by_term"),
          column(
              c,
              "SELECT indexname FROM pg_indexes WHERE tablename = 'session_terms'"
                  + " ORDER BY indexname"));
      // Text sorts by code point whatever the database's locale, as on H2 and in Java.
      assertEquals(
          List.of("C"),
          column(
              c,
              "SELECT DISTINCT collation_name FROM information_schema.columns"
                  + " WHERE table_name = 'session_terms' AND data_type = 'text'"));
    }
    for (SqlControlStore s : stores) {
      s.recordDecisions(ALICE, "", ControlFixtures.decisions("opened", 1), T0);
    }
    assertEquals(4, stores.get(0).decisions(new DecisionQuery(ALICE, "", null, 10, 0)).size());
  }

  @Test
  void endsOfOneRunOnSeveralStoresAtOnceKeepOneResultReceiptAndAudit() throws Exception {
    List<SqlControlStore> stores = openAll(STORES);
    for (int run = 0; run < 20; run++) {
      String runId = "run-" + run;
      List<Callable<EndRunResult>> ends = new ArrayList<>();
      for (int i = 0; i < STORES; i++) {
        SqlControlStore s = stores.get(i);
        EndRunResult mine = result(runId, i + 1); // each store's own version of the run
        ends.add(() -> s.saveEndRun(ALICE, mine, receipt(mine)));
      }
      List<EndRunResult> got = atOnce(ends);
      EndRunResult winner = got.get(0);
      assertEquals(List.of(winner, winner, winner), got, runId);
      for (SqlControlStore s : stores) {
        assertEquals(Optional.of(winner), s.endRun(ALICE, runId));
        assertEquals(Optional.of(receipt(winner)), s.run(ALICE, runId));
      }
      try (Connection c = pg.connect()) {
        assertEquals(List.of("1"), column(c, count("run_results", runId)));
        assertEquals(List.of("1"), column(c, count("run_receipts", runId)));
        assertEquals(
            List.of(Integer.toString(winner.decisions().size())),
            column(c, count("write_decisions", runId)));
      }
    }
  }

  @Test
  void beginsOfOneRunOnSeveralStoresAtOnceAgreeOnOneSnapshot() throws Exception {
    List<SqlControlStore> stores = openAll(STORES);
    List<Callable<RunSnapshot>> saves = new ArrayList<>();
    for (int i = 0; i < STORES; i++) {
      SqlControlStore s = stores.get(i);
      RunSnapshot mine = ControlFixtures.snapshot("run-1", "snap-" + i, T0, Duration.ofHours(1));
      saves.add(() -> s.saveSnapshot(ALICE, mine, T0));
    }
    List<RunSnapshot> got = atOnce(saves);
    assertEquals(1, new HashSet<>(got).size(), got.toString());
    assertEquals(Optional.of(got.get(0)), stores.get(1).snapshot(ALICE, "run-1", T0));
  }

  @Test
  void aRulePutThroughOneStoreIsSeenByTheOthersAtOnce() {
    List<SqlControlStore> stores = openAll(STORES);
    SqlControlStore a = stores.get(0);
    SqlControlStore b = stores.get(1);
    long before = b.toolRulesVersion("acme").orElseThrow();
    ToolRule rule =
        a.putToolRule(
            "acme",
            new ToolRule(
                "r1",
                "send_email",
                "never email Sarah",
                ToolRule.Priority.CRITICAL,
                ToolRule.Source.USER_EXPLICIT,
                List.of(),
                T0,
                T0,
                List.of("sarah")));
    long afterPut = b.toolRulesVersion("acme").orElseThrow();
    assertTrue(afterPut > before, before + " -> " + afterPut);
    assertEquals(List.of(rule), b.toolRules("acme", "send_email"));
    assertTrue(stores.get(2).deleteToolRule("acme", "send_email", "r1"));
    assertTrue(a.toolRulesVersion("acme").orElseThrow() > afterPut);
    assertEquals(List.of(), a.toolRules("acme", ""));
    // Another workspace's version does not move.
    assertEquals(0, b.toolRulesVersion("globex").orElseThrow());
  }

  @Test
  void onlyOneOfSeveralStoresTakesTheMaintenanceLeaseUntilItLapses() throws Exception {
    List<SqlControlStore> stores = openAll(STORES);
    Instant due = T0;
    for (int round = 0; round < 10; round++) {
      Instant start = due.plusMillis(round);
      List<Callable<Boolean>> takes = new ArrayList<>();
      for (int i = 0; i < STORES; i++) {
        SqlControlStore s = stores.get(i);
        String owner = "sidecar-" + i;
        Instant at = start;
        takes.add(() -> s.takeLease("schedule", owner, at, at.plusSeconds(60), at));
      }
      List<Boolean> won = atOnce(takes);
      assertEquals(1, won.stream().filter(w -> w).count(), "round " + round + ": " + won);
      String winner = "sidecar-" + won.indexOf(true);
      String loser = "sidecar-" + ((won.indexOf(true) + 1) % STORES);
      SqlControlStore any = stores.get(2);
      assertEquals(winner, any.lease("schedule").orElseThrow().owner());
      // Held: nobody else takes it for a later pass either, until it lapses or is released.
      assertFalse(
          any.takeLease("schedule", loser, start.plusSeconds(59), start.plusSeconds(120), start));
      assertTrue(any.renewLease("schedule", winner, start.plusSeconds(90)));
      assertFalse(any.renewLease("schedule", loser, start.plusSeconds(90)));
      assertFalse(
          any.takeLease("schedule", loser, start.plusSeconds(89), start.plusSeconds(120), start));
      // Lapsed (its sidecar died): taken over, for a pass of a later slot only.
      Instant lapsed = start.plusSeconds(90);
      assertFalse(any.takeLease("schedule", loser, lapsed, lapsed.plusSeconds(60), start));
      assertTrue(
          any.takeLease(
              "schedule",
              loser,
              lapsed,
              lapsed.plusSeconds(60),
              start.plusSeconds(1).plusMillis(1)));
      assertFalse(any.renewLease("schedule", winner, lapsed.plusSeconds(10)));
      any.releaseLease("schedule", winner); // not its own any more: nothing
      assertEquals(loser, any.lease("schedule").orElseThrow().owner());
      any.releaseLease("schedule", loser);
      due = lapsed.plusSeconds(1);
    }
  }

  @Test
  void aScheduledMaintenancePassRunsOnOneSidecarOnly() throws Exception {
    List<Instant> passes = new ArrayList<>();
    List<MaintenanceService> services = new ArrayList<>();
    Maintenance everySecond =
        new Maintenance(
            true,
            new MaintenanceSchedule.Periodic(Duration.ofSeconds(1)),
            "",
            List.of(),
            Maintenance.RecordRetention.DEFAULT,
            Maintenance.Housekeeping.DEFAULT);
    try (EventBus events = new EventBus()) {
      for (int i = 0; i < STORES; i++) {
        MaintenanceTarget counting =
            new MaintenanceTarget() {
              @Override
              public String name() {
                return "counting";
              }

              @Override
              public void run(MaintenancePass pass) {
                synchronized (passes) {
                  passes.add(Instant.now());
                  passes.notifyAll();
                }
              }
            };
        services.add(
            new MaintenanceService(
                List.of(counting), everySecond, open(), events, Clock.systemUTC()));
      }
      services.forEach(MaintenanceService::start);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      synchronized (passes) {
        while (passes.size() < 4 && System.nanoTime() < deadline) {
          passes.wait(1000);
        }
      }
      services.forEach(MaintenanceService::close);
    }
    List<Instant> ran;
    synchronized (passes) {
      ran = List.copyOf(passes);
    }
    assertTrue(ran.size() >= 4, "passes: " + ran);
    // One pass per second among the three sidecars, not three.
    for (int i = 1; i < ran.size(); i++) {
      long gap = Duration.between(ran.get(i - 1), ran.get(i)).toMillis();
      assertTrue(gap >= 900, "two passes " + gap + " ms apart: " + ran);
    }
  }

  @Test
  void theAuditPagedWhileSeveralStoresAppendMissesNothing() throws Exception {
    List<SqlControlStore> stores = openAll(STORES);
    SqlControlStore reader = open();
    int perStore = 40;
    AtomicBoolean writing = new AtomicBoolean(true);
    Future<List<DecisionEntry>> paged =
        pool.submit(
            () -> {
              List<DecisionEntry> seen = new ArrayList<>();
              long after = 0;
              boolean last = false;
              while (true) {
                boolean stillWriting = writing.get();
                for (List<DecisionEntry> page;
                    !(page = reader.decisions(new DecisionQuery(ALICE, "", null, 50, after)))
                        .isEmpty(); ) {
                  seen.addAll(page);
                  after = page.getLast().sequence();
                }
                if (last) {
                  return seen;
                }
                last = !stillWriting;
              }
            });
    List<Callable<Void>> writers = new ArrayList<>();
    for (int i = 0; i < STORES; i++) {
      SqlControlStore s = stores.get(i);
      String prefix = "store-" + i + "-";
      writers.add(
          () -> {
            for (int n = 0; n < perStore; n++) {
              if (n % 2 == 0) {
                s.recordDecisions(ALICE, "", ControlFixtures.decisions(prefix + n, 20), T0);
              } else { // a transaction of several round trips: a longer gap to its commit
                EndRunResult r = result(prefix + n, 20);
                s.saveEndRun(ALICE, r, receipt(r));
              }
            }
            return null;
          });
    }
    atOnce(writers);
    writing.set(false);
    List<DecisionEntry> seen = paged.get();
    // Paging by sequence as it went: every decision once, none skipped by a late commit.
    assertEquals(STORES * perStore * 20, seen.size());
    assertEquals(
        STORES * perStore * 20, seen.stream().map(DecisionEntry::sequence).distinct().count());
  }

  @Test
  void vectorsReadByNumberWhileSeveralStoresAddThemMissNothing() throws Exception {
    List<SqlControlStore> stores = openAll(STORES);
    SqlControlStore reader = open();
    SessionKey.Owner owner = new SessionKey.Owner("acme", "alice");
    int perStore = 120;
    AtomicBoolean writing = new AtomicBoolean(true);
    Future<List<SessionStore.MessageVector>> read =
        pool.submit(
            () -> {
              List<SessionStore.MessageVector> seen = new ArrayList<>();
              long after = 0;
              boolean last = false;
              while (true) {
                boolean stillWriting = writing.get();
                for (List<SessionStore.MessageVector> page;
                    !(page = reader.vectors(owner, "hash", after, 40)).isEmpty(); ) {
                  seen.addAll(page);
                  after = page.getLast().vectorSequence();
                }
                if (last) {
                  return seen;
                }
                last = !stillWriting;
              }
            });
    List<Callable<Void>> writers = new ArrayList<>();
    for (int i = 0; i < STORES; i++) {
      SqlControlStore s = stores.get(i);
      SessionKey key = owner.session("s" + i);
      writers.add(
          () -> {
            for (int n = 1; n <= perStore; n++) {
              s.putVectors(
                  "hash",
                  List.of(
                      new SessionStore.MessageVector(
                          0, key, n, T0, MessageRole.USER, "", new float[] {n, 1f})));
            }
            return null;
          });
    }
    atOnce(writers);
    writing.set(false);
    List<SessionStore.MessageVector> seen = read.get();
    assertEquals(STORES * perStore, seen.size());
    Set<String> messages = new HashSet<>();
    for (SessionStore.MessageVector v : seen) {
      messages.add(v.key().sessionId() + "/" + v.sequence());
    }
    assertEquals(STORES * perStore, messages.size());
  }

  @Test
  void aMessageAppendedThroughOneStoreIsFoundThroughAnother() throws Exception {
    Clock clock = Clock.fixed(Instant.parse("2026-01-05T10:00:00Z"), ZoneOffset.UTC);
    Scope scope = new Scope("acme", "alice", "coder", "trip");
    try (SessionService a =
            new SessionService(open(), new HashEmbedder(), clock, SessionConfig.DEFAULT);
        SessionService b =
            new SessionService(open(), new HashEmbedder(), clock, SessionConfig.DEFAULT)) {
      a.append(
          scope,
          List.of(
              SessionMessage.of(
                  MessageRole.USER, "", "the violin recital is at seven", clock.instant()),
              SessionMessage.of(MessageRole.ASSISTANT, "", "noted, seven it is", clock.instant())),
          RequestOptions.DEFAULT);
      // Words: through the postings in the database, once A has written them behind its append.
      long written = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (a.postingsPending() > 0 && System.nanoTime() < written) {
        Thread.onSpinWait();
      }
      assertEquals(0, a.postingsPending());
      List<SessionHit> hits =
          b.search(scope, new SessionService.Query("violin", SessionStore.Filter.NONE, 5));
      assertEquals("the violin recital is at seven", hits.get(0).message().content());
      // Meaning: A's vectors, once A has made them, are in B's next search (its cache reads the
      // vectors numbered after the last it read at every search).
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (a.vectorsPending() > 0 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertEquals(0, a.vectorsPending());
      SqlControlStore bStore = opened.get(1);
      assertEquals(
          2,
          bStore
              .vectors(new SessionKey.Owner("acme", "alice"), new HashEmbedder().name(), 0, 10)
              .size());
      List<SessionHit> again =
          b.search(scope, new SessionService.Query("violin recital", SessionStore.Filter.NONE, 5));
      assertEquals("the violin recital is at seven", again.get(0).message().content());
    }
  }

  @Test
  void appendsToOneSessionThroughSeveralStoresAtOnceNumberEveryMessageOnce() throws Exception {
    List<SqlControlStore> stores = openAll(STORES);
    SessionKey key = new SessionKey("acme", "alice", "s1");
    int perStore = 30;
    List<Callable<Void>> writers = new ArrayList<>();
    for (int i = 0; i < STORES; i++) {
      SqlControlStore s = stores.get(i);
      String who = "store" + i;
      writers.add(
          () -> {
            for (int n = 0; n < perStore; n++) {
              ControlFixtures.appendAndIndex(
                  s,
                  key,
                  List.of(
                      SessionMessage.of(MessageRole.USER, "", who + " says " + n, T0)
                          .stored(who + "-" + n, key.sessionId(), 0, T0)),
                  List.of(
                      new SessionStore.IndexTerms(
                          java.util.Map.of(who, 1, "says", 1), java.util.Map.of())),
                  T0);
            }
            return null;
          });
    }
    atOnce(writers);
    List<SessionMessage> all = stores.get(0).messages(key, 0, 1000);
    assertEquals(STORES * perStore, all.size());
    for (int i = 0; i < all.size(); i++) {
      assertEquals(i + 1, all.get(i).sequence());
    }
    // The index and its totals agree: each store's word is in exactly its messages.
    List<SessionStore.Match> says =
        stores
            .get(1)
            .bm25(key.owner(), Set.of("store2"), SessionStore.Filter.NONE, 1000, List.of());
    assertEquals(perStore, says.size());
  }

  @Test
  void textPostgresCannotHoldIsRefusedNamingTheField() {
    SqlControlStore s = open();
    SessionKey key = new SessionKey("acme", "alice", "s1");
    MemoryException e =
        assertThrows(
            MemoryException.class,
            () ->
                s.append(
                    key,
                    "coder",
                    List.of(
                        SessionMessage.of(MessageRole.USER, "", "fine", T0),
                        SessionMessage.of(MessageRole.USER, "", "a\u0000b", T0)),
                    List.of(SessionStore.IndexTerms.NONE, SessionStore.IndexTerms.NONE),
                    T0));
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, e.code());
    assertEquals("messages[1].content", e.field());
    assertTrue(e.getMessage().contains("NUL character (U+0000) at index 1"), e.getMessage());
    assertEquals(List.of(), s.messages(key, 0, 10)); // nothing written
  }

  private static RunReceipt receipt(EndRunResult r) {
    return new RunReceipt(
        r.runId(),
        ALICE,
        ALICE.sessionId(),
        "task-1",
        List.of(),
        List.of(new SkillVersion("search", "2")),
        null,
        r.endTime(),
        r.endTime(),
        RunReceipt.WriteCounts.of(r.decisions()),
        "",
        0);
  }

  private static String count(String table, String runId) {
    return "SELECT COUNT(*) FROM " + table + " WHERE run_id = '" + runId + "'";
  }

  private static List<String> column(Connection c, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
