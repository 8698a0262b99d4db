package dev.memsidecar.core.control;

import static dev.memsidecar.core.control.ControlFixtures.T0;
import static dev.memsidecar.core.control.ControlFixtures.decisions;
import static dev.memsidecar.core.control.ControlFixtures.result;
import static dev.memsidecar.core.control.ControlFixtures.snapshot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.StartupException;
import dev.memsidecar.core.WriteDecision;
import dev.memsidecar.core.WriteDecision.Outcome;
import dev.memsidecar.core.run.DecisionEntry;
import dev.memsidecar.core.run.DecisionQuery;
import dev.memsidecar.core.run.EndRunResult;
import dev.memsidecar.core.run.RunSnapshot;
import dev.memsidecar.core.toolrules.ToolRule;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The control store on an embedded H2 file; {@link TestControlStoreOnPostgres} runs it there. */
class TestH2ControlStore {
  static final Scope ALICE = new Scope("acme", "alice", "coder", "s1");
  private static final Scope BOB = new Scope("acme", "bob", "coder", "s1");
  private static final Duration DAY = Duration.ofHours(24);

  @TempDir Path dataDir;
  private SqlControlStore store;

  @BeforeEach
  void open() {
    store = openStore();
  }

  /** The store under test, opened again on the same database on each call. */
  SqlControlStore openStore() {
    return SqlControlStore.open(dataDir);
  }

  /** The store of the running test. */
  SqlControlStore store() {
    return store;
  }

  /** Makes {@code other} the store of the running test (closed after it). */
  void reopen(SqlControlStore other) {
    store = other;
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Test
  void snapshotRoundTripsUntilItExpires() {
    RunSnapshot s = snapshot("run-1", "snap-1", T0, DAY);
    assertEquals(s, store.saveSnapshot(ALICE, s, T0));
    assertEquals(Optional.of(s), store.snapshot(ALICE, "run-1", T0));
    assertEquals(Optional.of(s), store.snapshot(ALICE, "run-1", T0.plus(DAY).minusNanos(1)));
    assertEquals(Optional.empty(), store.snapshot(ALICE, "run-1", T0.plus(DAY)));
    assertEquals(Optional.empty(), store.snapshot(ALICE, "run-2", T0));
  }

  @Test
  void snapshotKeepsOddTextExactly() {
    RunSnapshot s = snapshot("run-1", "snap-1", T0, DAY);
    store.saveSnapshot(ALICE, s, T0);
    RunSnapshot back = store.snapshot(ALICE, "run-1", T0).orElseThrow();
    for (int i = 0; i < s.sections().size(); i++) {
      assertEquals(s.sections().get(i).body(), back.sections().get(i).body());
    }
    assertEquals(ControlFixtures.ODD_TEXT, back.recalled().get(1).memory().record().content());
    assertEquals(s.recalled().get(0).memory().record(), back.recalled().get(0).memory().record());
  }

  @Test
  void oneRunIdInTwoScopesKeepsTwoSnapshots() {
    RunSnapshot a = snapshot("run-1", "snap-a", T0, DAY);
    RunSnapshot b = snapshot("run-1", "snap-b", T0, DAY);
    store.saveSnapshot(ALICE, a, T0);
    assertEquals(b, store.saveSnapshot(BOB, b, T0));
    assertEquals("snap-a", store.snapshot(ALICE, "run-1", T0).orElseThrow().snapshotId());
    assertEquals("snap-b", store.snapshot(BOB, "run-1", T0).orElseThrow().snapshotId());
    Scope otherSession = new Scope("acme", "alice", "coder", "s2");
    assertEquals(Optional.empty(), store.snapshot(otherSession, "run-1", T0));
  }

  @Test
  void liveSnapshotWinsOverALaterOne() {
    RunSnapshot first = snapshot("run-1", "snap-1", T0, DAY);
    RunSnapshot second = snapshot("run-1", "snap-2", T0.plusSeconds(5), DAY);
    store.saveSnapshot(ALICE, first, T0);
    assertEquals(first, store.saveSnapshot(ALICE, second, T0.plusSeconds(5)));
    assertEquals(Optional.of(first), store.snapshot(ALICE, "run-1", T0.plusSeconds(6)));
  }

  @Test
  void expiredSnapshotIsReplaced() {
    store.saveSnapshot(ALICE, snapshot("run-1", "snap-1", T0, DAY), T0);
    Instant later = T0.plus(DAY).plusSeconds(1);
    RunSnapshot fresh = snapshot("run-1", "snap-2", later, DAY);
    assertEquals(fresh, store.saveSnapshot(ALICE, fresh, later));
    assertEquals(Optional.of(fresh), store.snapshot(ALICE, "run-1", later));
  }

  @Test
  void concurrentSavesOfOneRunAgreeOnOneSnapshot() throws Exception {
    for (int round = 0; round < 5; round++) {
      String runId = "run-" + round;
      List<RunSnapshot> returned =
          concurrently(
              8, i -> store.saveSnapshot(ALICE, snapshot(runId, "snap-" + i, T0, DAY), T0));
      RunSnapshot stored = store.snapshot(ALICE, runId, T0).orElseThrow();
      assertEquals(Set.of(stored), new HashSet<>(returned), runId);
    }
  }

  @Test
  void concurrentReplacementsOfAnExpiredSnapshotAgree() throws Exception {
    store.saveSnapshot(ALICE, snapshot("run-1", "old", T0, DAY), T0);
    Instant later = T0.plus(DAY).plusSeconds(1);
    List<RunSnapshot> returned =
        concurrently(
            8, i -> store.saveSnapshot(ALICE, snapshot("run-1", "new-" + i, later, DAY), later));
    RunSnapshot stored = store.snapshot(ALICE, "run-1", later).orElseThrow();
    assertTrue(stored.snapshotId().startsWith("new-"), stored.snapshotId());
    assertEquals(Set.of(stored), new HashSet<>(returned));
  }

  @Test
  void deleteExpiredSnapshotsDeletesOnlyExpiredOnes() {
    store.saveSnapshot(ALICE, snapshot("short", "s1", T0, Duration.ofMinutes(1)), T0);
    store.saveSnapshot(ALICE, snapshot("edge", "s2", T0, Duration.ofMinutes(2)), T0);
    store.saveSnapshot(BOB, snapshot("long", "s3", T0, DAY), T0);
    assertEquals(2, store.deleteExpiredSnapshots(T0.plus(Duration.ofMinutes(2))));
    assertEquals(0, store.deleteExpiredSnapshots(T0.plus(Duration.ofMinutes(2))));
    assertEquals("s3", store.snapshot(BOB, "long", T0).orElseThrow().snapshotId());
    // A deleted run can have a new snapshot.
    RunSnapshot again = snapshot("short", "s4", T0.plus(DAY), DAY);
    assertEquals(again, store.saveSnapshot(ALICE, again, T0.plus(DAY)));
  }

  @Test
  void endRunRoundTripsAndFillsTheAudit() {
    assertEquals(Optional.empty(), store.endRun(ALICE, "run-1"));
    EndRunResult r = result("run-1", 3);
    assertEquals(r, store.saveEndRun(ALICE, r));
    assertEquals(Optional.of(r), store.endRun(ALICE, "run-1"));
    assertEquals(Optional.empty(), store.endRun(BOB, "run-1"));
    List<DecisionEntry> audit = store.decisions(query(ALICE, 100));
    assertEquals(r.decisions(), audit.stream().map(DecisionEntry::decision).toList());
    for (DecisionEntry e : audit) {
      assertEquals("run-1", e.runId());
      assertEquals(T0, e.time());
      assertEquals(ALICE, e.scope());
    }
  }

  @Test
  void endRunWithoutDecisionsRoundTrips() {
    EndRunResult r = new EndRunResult("run-1", T0, false, List.of(), List.of());
    assertEquals(r, store.saveEndRun(ALICE, r));
    assertEquals(Optional.of(r), store.endRun(ALICE, "run-1"));
    assertEquals(List.of(), store.decisions(query(ALICE, 10)));
  }

  @Test
  void retriedEndRunGetsTheFirstResultAndAddsNothing() {
    EndRunResult first = result("run-1", 2);
    store.saveEndRun(ALICE, first);
    EndRunResult retry =
        new EndRunResult("run-1", T0.plusSeconds(9), true, decisions("retry", 4), List.of());
    assertEquals(first, store.saveEndRun(ALICE, retry));
    assertEquals(Optional.of(first), store.endRun(ALICE, "run-1"));
    assertEquals(2, store.decisions(query(ALICE, 100)).size());
  }

  @Test
  void concurrentEndRunsOfOneRunStoreOneResult() throws Exception {
    List<EndRunResult> returned =
        concurrently(
            8,
            i ->
                store.saveEndRun(
                    ALICE, new EndRunResult("run-1", T0, true, decisions("w" + i, 3), List.of())));
    EndRunResult stored = store.endRun(ALICE, "run-1").orElseThrow();
    assertEquals(Set.of(stored), new HashSet<>(returned));
    List<DecisionEntry> audit = store.decisions(query(ALICE, 100));
    assertEquals(stored.decisions(), audit.stream().map(DecisionEntry::decision).toList());
  }

  @Test
  void concurrentCallersAllFindTheirDecisionsInTheAuditEachInOnePiece() throws Exception {
    concurrently(
        8,
        i -> {
          for (int k = 0; k < 20; k++) {
            store.recordDecisions(ALICE, "c" + i, decisions("c" + i + "-" + k, 3), T0);
          }
          return i;
        });
    List<DecisionEntry> audit = store.decisions(query(ALICE, 1000));
    assertEquals(8 * 20 * 3, audit.size());
    for (int at = 0; at < audit.size(); at += 3) {
      String runId = audit.get(at).runId();
      for (int j = 1; j < 3; j++) {
        assertEquals(runId, audit.get(at + j).runId(), "one call's decisions stay together");
      }
    }
    for (int i = 0; i < 8; i++) {
      String runId = "c" + i;
      assertEquals(60, audit.stream().filter(e -> e.runId().equals(runId)).count());
    }
  }

  @Test
  void auditPagesOldestFirst() {
    List<WriteDecision> all = new ArrayList<>();
    for (int run = 0; run < 4; run++) {
      EndRunResult r = result("run-" + run, 3);
      store.saveEndRun(ALICE, r);
      all.addAll(r.decisions());
    }
    List<WriteDecision> paged = new ArrayList<>();
    long after = 0;
    int pages = 0;
    while (true) {
      List<DecisionEntry> page = store.decisions(new DecisionQuery(ALICE, "", null, 5, after));
      if (page.isEmpty()) {
        break;
      }
      pages++;
      assertTrue(page.size() <= 5);
      for (DecisionEntry e : page) {
        assertTrue(e.sequence() > after, "sequences increase");
        after = e.sequence();
        paged.add(e.decision());
      }
    }
    assertEquals(all, paged);
    assertEquals(3, pages);
  }

  @Test
  void auditNarrowsToTheGivenScopeIds() {
    Scope aliceS2 = new Scope("acme", "alice", "coder", "s2");
    Scope aliceReviewer = new Scope("acme", "alice", "reviewer", "s1");
    store.saveEndRun(ALICE, result("a", 1));
    store.saveEndRun(aliceS2, result("b", 1));
    store.saveEndRun(aliceReviewer, result("c", 1));
    store.saveEndRun(BOB, result("d", 1));
    store.recordDecisions(Scope.workspace("acme"), "", decisions("remember", 1), T0);
    assertEquals(List.of("a", "b", "c", "d", ""), runIds(Scope.workspace("acme")));
    assertEquals(List.of("a", "b", "c"), runIds(Scope.user("acme", "alice")));
    assertEquals(List.of("a", "c"), runIds(new Scope("acme", "alice", "", "s1")));
    assertEquals(List.of("a", "b", "d"), runIds(new Scope("acme", "", "coder", "")));
    assertEquals(List.of("a"), runIds(ALICE));
    assertEquals(List.of("d"), runIds(BOB));
  }

  @Test
  void auditNeverShowsAnotherWorkspace() {
    store.saveEndRun(Scope.workspace("acme"), result("run-1", 2));
    store.saveEndRun(Scope.workspace("globex"), result("run-1", 3));
    assertEquals(2, store.decisions(query(Scope.workspace("acme"), 100)).size());
    assertEquals(3, store.decisions(query(Scope.workspace("globex"), 100)).size());
    assertEquals(List.of(), store.decisions(query(Scope.workspace("initech"), 100)));
    assertEquals(
        0,
        store
            .decisions(new DecisionQuery(Scope.workspace("initech"), "run-1", null, 10, 0))
            .size());
  }

  @Test
  void auditFiltersByRunIdAndOutcome() {
    store.saveEndRun(ALICE, result("run-1", 6));
    store.saveEndRun(ALICE, result("run-2", 3));
    store.recordDecisions(ALICE, "", decisions("remember", 2), T0.plusSeconds(1));
    assertEquals(6, store.decisions(new DecisionQuery(ALICE, "run-1", null, 100, 0)).size());
    List<DecisionEntry> merged =
        store.decisions(new DecisionQuery(ALICE, "run-1", Outcome.MERGED, 100, 0));
    assertEquals(2, merged.size());
    for (DecisionEntry e : merged) {
      assertEquals(Outcome.MERGED, e.decision().outcome());
      assertEquals("run-1", e.runId());
    }
    assertEquals(4, store.decisions(new DecisionQuery(ALICE, "", Outcome.STORED, 100, 0)).size());
    List<DecisionEntry> remembered = store.decisions(query(ALICE, 100)).subList(9, 11);
    assertEquals(
        decisions("remember", 2), remembered.stream().map(DecisionEntry::decision).toList());
    assertEquals(T0.plusSeconds(1), remembered.get(0).time());
    assertEquals("", remembered.get(0).runId());
  }

  @Test
  void recordingNoDecisionsAddsNothing() {
    store.recordDecisions(ALICE, "run-1", List.of(), T0);
    assertEquals(List.of(), store.decisions(query(ALICE, 10)));
  }

  @Test
  void reopenAfterCloseKeepsEverything() {
    RunSnapshot s = snapshot("run-1", "snap-1", T0, DAY);
    EndRunResult r = result("run-1", 3);
    store.saveSnapshot(ALICE, s, T0);
    store.saveEndRun(ALICE, r);
    store.recordDecisions(BOB, "", decisions("remember", 1), T0);
    List<DecisionEntry> audit = store.decisions(query(Scope.workspace("acme"), 100));
    store.close();

    store = openStore();
    assertEquals(Optional.of(s), store.snapshot(ALICE, "run-1", T0));
    assertEquals(Optional.of(r), store.endRun(ALICE, "run-1"));
    assertEquals(audit, store.decisions(query(Scope.workspace("acme"), 100)));
    // Sequences go on increasing after a restart.
    store.recordDecisions(BOB, "", decisions("later", 1), T0);
    List<DecisionEntry> after = store.decisions(query(Scope.workspace("acme"), 100));
    assertTrue(after.getLast().sequence() > audit.getLast().sequence());
  }

  @Test
  void closedStoreFailsWithFailedPrecondition() {
    store.close();
    store.close();
    MemoryException e = assertThrows(MemoryException.class, () -> store.endRun(ALICE, "run-1"));
    assertEquals(MemoryException.Code.FAILED_PRECONDITION, e.code());
  }

  @Test
  void openRefusesUrlsThatBreakDurability() {
    Properties none = new Properties();
    StartupException delay =
        assertThrows(
            StartupException.class,
            () -> SqlControlStore.open("jdbc:h2:mem:x;WRITE_DELAY=500", none));
    assertTrue(delay.getMessage().contains("WRITE_DELAY=500"), delay.getMessage());
    assertThrows(
        StartupException.class, () -> SqlControlStore.open("jdbc:h2:mem:x;FILE_LOCK=NO", none));
    StartupException other =
        assertThrows(
            StartupException.class, () -> SqlControlStore.open("jdbc:mysql://db/control", none));
    assertTrue(other.getMessage().contains("jdbc:h2:"), other.getMessage());
  }

  @Test
  void openRefusesAnUnnamedInMemoryDatabase() {
    StartupException e =
        assertThrows(
            StartupException.class, () -> SqlControlStore.open("jdbc:h2:mem:", new Properties()));
    assertTrue(e.getMessage().contains("name it"), e.getMessage());
  }

  @Test
  void openRefusesTablesOfALaterRelease() throws Exception {
    store.close();
    String url = "jdbc:h2:file:" + dataDir.resolve("control").resolve("control").toAbsolutePath();
    try (Connection c = DriverManager.getConnection(url, "", "");
        Statement st = c.createStatement()) {
      st.executeUpdate("UPDATE control_schema SET version = 99");
    }
    StartupException e = assertThrows(StartupException.class, () -> SqlControlStore.open(dataDir));
    assertTrue(e.getMessage().contains("schema version 99"), e.getMessage());
    store = SqlControlStore.open(dataDir.resolve("elsewhere"));
  }

  @Test
  void opensAnyH2Url() {
    try (SqlControlStore mem = SqlControlStore.open("jdbc:h2:mem:control-test", new Properties())) {
      EndRunResult r = result("run-1", 1);
      mem.saveEndRun(ALICE, r);
      assertEquals(Optional.of(r), mem.endRun(ALICE, "run-1"));
    }
  }

  @Test
  void acknowledgedWritesSurviveKillOfTheProcess(@TempDir Path crashDir) throws Exception {
    Process child = ControlCrashChild.start(crashDir);
    child.destroyForcibly();
    child.waitFor();
    try (SqlControlStore reopened = SqlControlStore.open(crashDir)) {
      Scope scope = ControlCrashChild.SCOPE;
      int ended = 0;
      while (ended < ControlCrashChild.RUNS
          && reopened.endRun(scope, ControlCrashChild.runId(ended)).isPresent()) {
        assertEquals(
            Optional.of(ControlCrashChild.snapshot(ended)),
            reopened.snapshot(scope, ControlCrashChild.runId(ended), T0));
        ToolRule rule = ControlCrashChild.rule(ended);
        assertEquals(
            Optional.of(rule), reopened.toolRule(scope.workspaceId(), rule.toolName(), rule.id()));
        ended++;
      }
      assertTrue(ended >= ControlCrashChild.ACKNOWLEDGED, "acknowledged runs lost: " + ended);
      // Runs ended one after another: none after the first missing one.
      assertEquals(Optional.empty(), reopened.endRun(scope, ControlCrashChild.runId(ended + 1)));
      // Each result came with all of its decisions, or not at all.
      List<String> audited = new ArrayList<>();
      long after = 0;
      for (List<DecisionEntry> page;
          !(page = reopened.decisions(new DecisionQuery(scope, "", null, 1000, after)))
              .isEmpty(); ) {
        for (DecisionEntry e : page) {
          audited.add(e.runId());
          after = e.sequence();
        }
      }
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < ended; i++) {
        for (int d = 0; d < ControlCrashChild.DECISIONS; d++) {
          expected.add(ControlCrashChild.runId(i));
        }
      }
      assertEquals(expected, audited);
      // Every run that ended had its denial recorded before, and the count agrees with the rows.
      long denials = reopened.toolStats(scope.workspaceId(), "send_email").denials();
      assertTrue(denials >= ended, "denials lost: " + denials + " < " + ended);
      assertEquals(
          denials, reopened.denials(scope.workspaceId(), "send_email", Integer.MAX_VALUE).size());
    }
  }

  private List<String> runIds(Scope scope) {
    return store.decisions(query(scope, 100)).stream().map(DecisionEntry::runId).toList();
  }

  static DecisionQuery query(Scope scope, int pageSize) {
    return new DecisionQuery(scope, "", null, pageSize, 0);
  }

  /** Task {@code i} for {@code i} in 0..n-1. */
  private interface Task<T> {
    T run(int i) throws Exception;
  }

  /** Runs {@code n} tasks at once, released together, and returns their results. */
  private static <T> List<T> concurrently(int n, Task<T> task) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int index = i;
        Callable<T> c =
            () -> {
              start.await();
              return task.run(index);
            };
        futures.add(pool.submit(c));
      }
      start.countDown();
      List<T> out = new ArrayList<>();
      for (Future<T> f : futures) {
        out.add(f.get());
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }
}
