package dev.memsidecar.core.control;

import static dev.memsidecar.core.control.ControlFixtures.ODD_TEXT;
import static dev.memsidecar.core.control.ControlFixtures.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.ToolCall;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.run.EndRunResult;
import dev.memsidecar.core.run.RunSnapshot;
import dev.memsidecar.core.toolrules.ToolDenial;
import dev.memsidecar.core.toolrules.ToolRule;
import dev.memsidecar.core.toolrules.ToolRule.Priority;
import dev.memsidecar.core.toolrules.ToolRule.Source;
import dev.memsidecar.core.toolrules.ToolStats;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

/** The tool tables of the control store: rules, stats, denials (schema version 2). */
class TestToolRuleTables {
  // TestToolRuleTablesOnPostgres runs these on PostgreSQL.
  private static final String ACME = "acme";
  private static final String GLOBEX = "globex";

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

  @AfterEach
  void close() {
    store.close();
  }

  // ---------------------------------------------------------------- rules

  @Test
  void ruleRoundTripsAndDeletes() {
    ToolRule rule =
        new ToolRule(
            "r1",
            "send_email",
            "Never email Sarah at sarah@example.com",
            Priority.CRITICAL,
            Source.USER_EXPLICIT,
            List.of("safety", "user"),
            T0,
            T0.plusSeconds(1),
            List.of("sarah@example.com", "sarah"));
    assertEquals(rule, store.putToolRule(ACME, rule));
    assertEquals(Optional.of(rule), store.toolRule(ACME, "send_email", "r1"));
    assertEquals(List.of(rule), store.toolRules(ACME, "send_email"));
    assertEquals(List.of(rule), store.toolRules(ACME, ""));
    assertEquals(Optional.empty(), store.toolRule(ACME, "bash", "r1"));
    assertEquals(List.of(), store.toolRules(ACME, "bash"));

    assertFalse(store.deleteToolRule(ACME, "bash", "r1"));
    assertTrue(store.deleteToolRule(ACME, "send_email", "r1"));
    assertFalse(store.deleteToolRule(ACME, "send_email", "r1"));
    assertEquals(Optional.empty(), store.toolRule(ACME, "send_email", "r1"));
    assertEquals(List.of(), store.toolRules(ACME, ""));
  }

  @Test
  void ruleKeepsOddTextTagsAndObjectsExactly() {
    ToolRule rule =
        new ToolRule(
            "id " + ODD_TEXT,
            "工具 " + ODD_TEXT,
            "不要 " + ODD_TEXT,
            Priority.HIGH,
            Source.POST_TURN,
            List.of(ODD_TEXT, ""),
            T0,
            T0,
            List.of(ODD_TEXT, "/etc/passwd"));
    store.putToolRule(ACME, rule);
    assertEquals(Optional.of(rule), store.toolRule(ACME, rule.toolName(), rule.id()));
  }

  @Test
  void ruleWithoutIdGetsOne() {
    ToolRule stored = store.putToolRule(ACME, rule("", "bash", "never run rm -rf /", 0));
    assertFalse(stored.id().isEmpty());
    assertEquals(Optional.of(stored), store.toolRule(ACME, "bash", stored.id()));
  }

  @Test
  void listOrdersByPriorityThenNewestThenId() {
    store.putToolRule(ACME, rule("n-old", "bash", "normal old", Priority.NORMAL, 1));
    store.putToolRule(ACME, rule("h-new", "bash", "high new", Priority.HIGH, 9));
    store.putToolRule(ACME, rule("c-old", "bash", "critical old", Priority.CRITICAL, 2));
    store.putToolRule(ACME, rule("n-new", "bash", "normal new", Priority.NORMAL, 8));
    store.putToolRule(ACME, rule("c-b", "bash", "critical new b", Priority.CRITICAL, 7));
    store.putToolRule(ACME, rule("c-a", "bash", "critical new a", Priority.CRITICAL, 7));
    store.putToolRule(ACME, rule("h-mail", "send_email", "high mail", Priority.HIGH, 5));
    assertEquals(
        List.of("c-a", "c-b", "c-old", "h-new", "n-new", "n-old"),
        ids(store.toolRules(ACME, "bash")));
    assertEquals(
        List.of("c-a", "c-b", "c-old", "h-new", "h-mail", "n-new", "n-old"),
        ids(store.toolRules(ACME, "")));
    // An update makes a rule the newest of its priority.
    store.putToolRule(ACME, rule("c-old", "bash", "critical old, changed", Priority.CRITICAL, 10));
    assertEquals(List.of("c-old", "c-a", "c-b"), ids(store.toolRules(ACME, "bash")).subList(0, 3));
  }

  @Test
  void sameTextReusesTheIdAndKeepsTheCreateTime() {
    ToolRule first = store.putToolRule(ACME, rule("", "send_email", "Never email Sarah.", 0));
    List<String> variants =
        List.of(
            "never email sarah",
            "  NEVER   email\tSarah!! ",
            "Never email Sarah .",
            "Never email Sarah?!…",
            "Ｎｅｖｅｒ email Sarah。");
    int second = 1;
    for (String text : variants) {
      ToolRule again =
          store.putToolRule(
              ACME, rule("", "send_email", text, Priority.HIGH, Source.POST_TURN, second));
      assertEquals(first.id(), again.id(), text);
      assertEquals(first.createTime(), again.createTime(), text);
      assertEquals(T0.plusSeconds(second), again.updateTime(), text);
      assertEquals(List.of(again), store.toolRules(ACME, "send_email"), text);
      second++;
    }
    // An id no rule has yet does not split the rule in two: the rule keeps its id.
    ToolRule named =
        store.putToolRule(ACME, rule("fresh-id", "send_email", "never email sarah", 50));
    assertEquals(first.id(), named.id());
    assertEquals(1, store.toolRules(ACME, "send_email").size());
    // The stored text, priority and source are the latest ones.
    ToolRule stored = store.toolRule(ACME, "send_email", first.id()).orElseThrow();
    assertEquals("never email sarah", stored.rule());
    assertEquals(T0, stored.createTime());
    assertEquals(T0.plusSeconds(50), stored.updateTime());
  }

  @Test
  void differentTextOrToolIsAnotherRule() {
    ToolRule sarah = store.putToolRule(ACME, rule("", "send_email", "never email Sarah", 0));
    ToolRule bob = store.putToolRule(ACME, rule("", "send_email", "never email Bob", 1));
    ToolRule inside = store.putToolRule(ACME, rule("", "send_email", "never, email Sarah", 2));
    ToolRule slack = store.putToolRule(ACME, rule("", "send_slack", "never email Sarah", 3));
    assertEquals(3, new HashSet<>(ids(List.of(sarah, bob, inside))).size());
    assertEquals(3, store.toolRules(ACME, "send_email").size());
    assertEquals(List.of(slack), store.toolRules(ACME, "send_slack"));
    // The same id in two tools is two rules.
    ToolRule a = store.putToolRule(ACME, rule("same", "bash", "never sudo", 4));
    ToolRule b = store.putToolRule(ACME, rule("same", "exec", "never sudo", 5));
    assertEquals(Optional.of(a), store.toolRule(ACME, "bash", "same"));
    assertEquals(Optional.of(b), store.toolRule(ACME, "exec", "same"));
  }

  @Test
  void explicitIdUpdatesItsRuleAndKeepsTheCreateTime() {
    store.putToolRule(ACME, rule("r1", "bash", "never run rm -rf /", 0));
    ToolRule changed =
        store.putToolRule(
            ACME,
            new ToolRule(
                "r1",
                "bash",
                "never run sudo",
                Priority.HIGH,
                Source.PROGRAMMATIC,
                List.of("ops"),
                T0.plusSeconds(30),
                T0.plusSeconds(30),
                List.of("sudo")));
    assertEquals("r1", changed.id());
    assertEquals(T0, changed.createTime());
    assertEquals(List.of(changed), store.toolRules(ACME, "bash"));
    // The old text is free again: writing it makes a new rule.
    ToolRule old = store.putToolRule(ACME, rule("", "bash", "never run rm -rf /", 40));
    assertNotEquals("r1", old.id());
    assertEquals(2, store.toolRules(ACME, "bash").size());
  }

  @Test
  void explicitIdCannotTakeTheTextOfAnotherRule() {
    store.putToolRule(ACME, rule("r1", "bash", "never run sudo", 0));
    store.putToolRule(ACME, rule("r2", "bash", "never run rm", 1));
    MemoryException e =
        assertThrows(
            MemoryException.class,
            () -> store.putToolRule(ACME, rule("r2", "bash", "Never run SUDO.", 2)));
    assertEquals(MemoryException.Code.ALREADY_EXISTS, e.code());
    assertTrue(e.getMessage().contains("r1"), e.getMessage());
    assertEquals("never run rm", store.toolRule(ACME, "bash", "r2").orElseThrow().rule());
  }

  @Test
  void ruleWithoutWordsOrToolIsRefused() {
    for (String blank : List.of("", "   ", " ...!? ", "。")) {
      MemoryException e =
          assertThrows(
              MemoryException.class, () -> store.putToolRule(ACME, rule("", "bash", blank, 0)));
      assertEquals(MemoryException.Code.INVALID_ARGUMENT, e.code(), blank);
      assertEquals("rule.rule", e.field());
    }
    MemoryException e =
        assertThrows(
            MemoryException.class, () -> store.putToolRule(ACME, rule("", "", "never sudo", 0)));
    assertEquals("rule.tool_name", e.field());
    assertEquals(List.of(), store.toolRules(ACME, ""));
  }

  @Test
  void concurrentPutsOfOneRuleLeaveOneRow() throws Exception {
    List<String> variants =
        List.of(
            "Never email Sarah",
            "never email sarah.",
            " NEVER EMAIL SARAH ",
            "never  email sarah!");
    for (int round = 0; round < 10; round++) {
      String tool = "send_email_" + round;
      List<ToolRule> returned =
          concurrently(
              8,
              i -> store.putToolRule(ACME, rule("", tool, variants.get(i % variants.size()), i)));
      List<ToolRule> stored = store.toolRules(ACME, tool);
      assertEquals(1, stored.size(), tool);
      assertEquals(Set.of(stored.get(0).id()), new HashSet<>(ids(returned)), tool);
    }
  }

  @Test
  void concurrentPutsWithOneExplicitIdLeaveOneRow() throws Exception {
    List<ToolRule> returned =
        concurrently(8, i -> store.putToolRule(ACME, rule("r1", "bash", "never sudo", i)));
    assertEquals(Set.of("r1"), new HashSet<>(ids(returned)));
    assertEquals(1, store.toolRules(ACME, "bash").size());
  }

  @Test
  void normalisedTextFoldsCaseSpaceAndTrailingPunctuationOnly() {
    assertEquals("never email sarah", ToolRuleText.normalise("  Never\n\u00a0EMAIL  Sarah!?. "));
    assertEquals("不要删除生产数据库", ToolRuleText.normalise("不要删除生产数据库。"));
    assertEquals("never, email sarah", ToolRuleText.normalise("Never, email Sarah"));
    assertEquals("never delete /tmp/", ToolRuleText.normalise("never delete /tmp/"));
    assertEquals("", ToolRuleText.normalise(" ..."));
    assertEquals(ToolRuleText.key("Never email Sarah"), ToolRuleText.key("never email sarah!"));
    assertNotEquals(ToolRuleText.key("never email bob"), ToolRuleText.key("never email sarah"));
    assertEquals(64, ToolRuleText.key("x".repeat(100_000)).length());
  }

  // ---------------------------------------------------------------- stats and denials

  @Test
  void statsCountCallsAndFailuresByCategory() {
    assertEquals(ToolStats.none("send_email"), store.toolStats(ACME, "send_email"));
    store.recordToolCalls(
        ACME,
        List.of(
            ok("send_email"),
            failed("send_email", "timeout", "timed out after 30 s"),
            ok("bash"),
            failed("send_email", "timeout", "timed out again"),
            failed("send_email", "", "no category"),
            failed("bash", "permission", "denied: /etc"),
            new ToolCall("", false, "timeout", "a call without a tool counts nowhere")),
        T0);
    ToolStats email = store.toolStats(ACME, "send_email");
    assertEquals(4, email.calls());
    assertEquals(3, email.failures());
    assertEquals(
        Map.of("timeout", 2L, ToolStatsTables.UNKNOWN_CATEGORY, 1L), email.failuresByCategory());
    assertEquals(T0, email.lastFailureTime());
    assertEquals("no category", email.lastErrorMessage());
    assertEquals(0, email.denials());
    ToolStats bash = store.toolStats(ACME, "bash");
    assertEquals(
        new ToolStats("bash", 2, 1, Map.of("permission", 1L), T0, "denied: /etc", 0), bash);
    assertEquals(ToolStats.none(""), store.toolStats(ACME, ""));

    // A later run adds to the counts; a run without failures leaves the last failure alone.
    store.recordToolCalls(
        ACME,
        List.of(failed("send_email", "auth", "bad token"), ok("send_email")),
        T0.plusSeconds(60));
    store.recordToolCalls(ACME, List.of(ok("send_email")), T0.plusSeconds(120));
    email = store.toolStats(ACME, "send_email");
    assertEquals(7, email.calls());
    assertEquals(4, email.failures());
    assertEquals(
        Map.of("timeout", 2L, "auth", 1L, ToolStatsTables.UNKNOWN_CATEGORY, 1L),
        email.failuresByCategory());
    assertEquals(T0.plusSeconds(60), email.lastFailureTime());
    assertEquals("bad token", email.lastErrorMessage());
  }

  @Test
  void lastFailureOnlyMovesForward() {
    store.recordToolCalls(ACME, List.of(failed("bash", "timeout", "newer")), T0.plusSeconds(10));
    store.recordToolCalls(ACME, List.of(failed("bash", "oom", "older")), T0);
    ToolStats bash = store.toolStats(ACME, "bash");
    assertEquals(2, bash.failures());
    assertEquals(T0.plusSeconds(10), bash.lastFailureTime());
    assertEquals("newer", bash.lastErrorMessage());
  }

  @Test
  void longErrorMessageIsCut() {
    String longMessage = "e".repeat(1023) + "🚀" + "tail";
    store.recordToolCalls(ACME, List.of(failed("bash", "crash", longMessage)), T0);
    assertEquals("e".repeat(1023), store.toolStats(ACME, "bash").lastErrorMessage());
    store.recordToolCalls(ACME, List.of(failed("bash", "crash", "x".repeat(5000))), T0);
    assertEquals("x".repeat(1024), store.toolStats(ACME, "bash").lastErrorMessage());
  }

  @Test
  void recordingNoCallsAddsNothing() {
    store.recordToolCalls(ACME, List.of(), T0);
    assertEquals(ToolStats.none("bash"), store.toolStats(ACME, "bash"));
  }

  @Test
  void denialsAreListedNewestFirstAndCountedApartFromFailures() {
    store.recordToolCalls(ACME, List.of(ok("send_email"), failed("send_email", "auth", "x")), T0);
    store.recordDenial(ACME, denial("r1", "send_email", "sarah@example.com", "run-1", 1));
    store.recordDenial(ACME, denial("r2", "bash", "rm -rf /", "run-1", 2));
    store.recordDenial(ACME, denial("r1", "send_email", "sarah", "", 3));
    store.recordDenial(ACME, denial("r1", "send_email", "sarah@example.com", "run-2", 3));

    ToolStats email = store.toolStats(ACME, "send_email");
    assertEquals(2, email.calls());
    assertEquals(1, email.failures());
    assertEquals(Map.of("auth", 1L), email.failuresByCategory());
    assertEquals(3, email.denials());
    // A tool only ever denied has stats too.
    assertEquals(new ToolStats("bash", 0, 0, Map.of(), null, "", 1), store.toolStats(ACME, "bash"));

    List<ToolDenial> emailDenials = store.denials(ACME, "send_email", 10);
    // Newest first; of two at one time, the later recorded first.
    assertEquals(
        List.of(
            denial("r1", "send_email", "sarah@example.com", "run-2", 3),
            denial("r1", "send_email", "sarah", "", 3),
            denial("r1", "send_email", "sarah@example.com", "run-1", 1)),
        emailDenials);
    assertEquals(emailDenials.subList(0, 2), store.denials(ACME, "send_email", 2));
    assertEquals(
        List.of("run-2", "", "run-1", "run-1"),
        store.denials(ACME, "", 10).stream().map(ToolDenial::runId).toList());
    assertEquals(List.of(), store.denials(ACME, "exec", 10));
    assertThrows(IllegalArgumentException.class, () -> store.denials(ACME, "", 0));
  }

  @Test
  void longMatchedObjectIsCut() {
    store.recordDenial(ACME, denial("r1", "bash", "y".repeat(1000), "run-1", 0));
    assertEquals("y".repeat(256), store.denials(ACME, "bash", 1).get(0).matchedObject());
  }

  @Test
  void concurrentRecordsAddUpExactly() throws Exception {
    concurrently(
        8,
        i -> {
          for (int run = 0; run < 5; run++) {
            store.recordToolCalls(
                ACME,
                List.of(
                    ok("send_email"),
                    failed("send_email", "timeout", "t" + i),
                    failed("bash", "cat" + (run % 2), "b" + i),
                    ok("bash")),
                T0.plusSeconds(run));
            store.recordDenial(ACME, denial("r1", "send_email", "sarah", "run-" + i, run));
          }
          return null;
        });
    ToolStats email = store.toolStats(ACME, "send_email");
    assertEquals(80, email.calls());
    assertEquals(40, email.failures());
    assertEquals(Map.of("timeout", 40L), email.failuresByCategory());
    assertEquals(40, email.denials());
    assertEquals(T0.plusSeconds(4), email.lastFailureTime());
    ToolStats bash = store.toolStats(ACME, "bash");
    assertEquals(80, bash.calls());
    assertEquals(Map.of("cat0", 24L, "cat1", 16L), bash.failuresByCategory());
    assertEquals(40, store.denials(ACME, "send_email", 1000).size());
  }

  // ---------------------------------------------------------------- isolation, reopen, migration

  @Test
  void workspacesNeverSeeEachOther() {
    ToolRule acme = store.putToolRule(ACME, rule("", "send_email", "never email Sarah", 0));
    ToolRule globex = store.putToolRule(GLOBEX, rule("", "send_email", "never email Sarah", 1));
    assertNotEquals(acme.id(), globex.id());
    assertEquals(List.of(acme), store.toolRules(ACME, ""));
    assertEquals(List.of(globex), store.toolRules(GLOBEX, ""));
    assertEquals(Optional.empty(), store.toolRule(GLOBEX, "send_email", acme.id()));
    assertFalse(store.deleteToolRule(GLOBEX, "send_email", acme.id()));
    assertEquals(List.of(acme), store.toolRules(ACME, ""));
    assertEquals(List.of(), store.toolRules("initech", ""));

    store.recordToolCalls(ACME, List.of(failed("send_email", "auth", "x")), T0);
    store.recordDenial(ACME, denial(acme.id(), "send_email", "sarah", "run-1", 0));
    assertEquals(ToolStats.none("send_email"), store.toolStats(GLOBEX, "send_email"));
    assertEquals(List.of(), store.denials(GLOBEX, "", 10));
    assertEquals(1, store.toolStats(ACME, "send_email").denials());
  }

  @Test
  void reopenKeepsRulesStatsAndDenials() {
    ToolRule a = store.putToolRule(ACME, rule("", "send_email", "never email Sarah", 0));
    ToolRule b = store.putToolRule(ACME, rule("r2", "bash", "never sudo", Priority.HIGH, 1));
    store.recordToolCalls(ACME, List.of(failed("bash", "timeout", "slow"), ok("bash")), T0);
    store.recordDenial(ACME, denial(a.id(), "send_email", "sarah", "run-1", 2));
    List<ToolRule> rules = store.toolRules(ACME, "");
    ToolStats bash = store.toolStats(ACME, "bash");
    ToolStats email = store.toolStats(ACME, "send_email");
    List<ToolDenial> denials = store.denials(ACME, "", 10);
    store.close();

    store = openStore();
    assertEquals(List.of(a, b), rules);
    assertEquals(rules, store.toolRules(ACME, ""));
    assertEquals(bash, store.toolStats(ACME, "bash"));
    assertEquals(email, store.toolStats(ACME, "send_email"));
    assertEquals(denials, store.denials(ACME, "", 10));
    // The same rule still finds its id after a restart.
    assertEquals(
        a.id(), store.putToolRule(ACME, rule("", "send_email", "Never email sarah.", 3)).id());
  }

  @Test
  void databaseOfSchemaVersionOneGainsTheToolTables(@TempDir Path oldDir) throws Exception {
    String url = "jdbc:h2:file:" + oldDir.resolve("control").resolve("control").toAbsolutePath();
    EndRunResult result = ControlFixtures.result("run-1", 2);
    RunSnapshot snapshot = ControlFixtures.snapshot("run-1", "snap-1", T0, Duration.ofDays(1));
    try (Connection c = DriverManager.getConnection(url, "", "");
        Statement st = c.createStatement()) {
      for (String ddl : ControlFixtures.VERSION_1_DDL) {
        st.execute(ddl);
      }
      st.execute("INSERT INTO control_schema (id, version) VALUES (1, 1)");
      try (PreparedStatement insert =
          c.prepareStatement(
              "INSERT INTO run_results (workspace_id, user_id, agent_id, session_id, run_id,"
                  + " end_at, result_json) VALUES ('acme', 'alice', '', '', 'run-1', ?, ?)")) {
        insert.setLong(1, ControlSchema.nanos(T0));
        insert.setString(2, ControlJson.write(result));
        insert.executeUpdate();
      }
      // A snapshot as version 1 wrote it, before snapshots named the run's tools.
      String snapshotJson = ControlJson.write(snapshot);
      String withoutTools = snapshotJson.replace(",\"tools\":[\"send_email\",\"bash\"]", "");
      assertNotEquals(snapshotJson, withoutTools);
      try (PreparedStatement insert =
          c.prepareStatement(
              "INSERT INTO run_snapshots (workspace_id, user_id, agent_id, session_id, run_id,"
                  + " snapshot_id, created_at, expire_at, snapshot_json)"
                  + " VALUES ('acme', 'alice', '', '', 'run-1', 'snap-1', ?, ?, ?)")) {
        insert.setLong(1, ControlSchema.nanos(snapshot.createTime()));
        insert.setLong(2, ControlSchema.nanos(snapshot.expireTime()));
        insert.setString(3, withoutTools);
        insert.executeUpdate();
      }
    }

    Scope alice = Scope.user(ACME, "alice");
    try (SqlControlStore migrated = SqlControlStore.open(oldDir)) {
      assertEquals(Optional.of(result), migrated.endRun(alice, "run-1"));
      RunSnapshot old = migrated.snapshot(alice, "run-1", T0).orElseThrow();
      assertEquals(snapshot.sections(), old.sections());
      assertEquals(List.of(), old.tools());
      ToolRule rule = migrated.putToolRule(ACME, rule("", "send_email", "never email Sarah", 0));
      migrated.recordToolCalls(ACME, List.of(failed("send_email", "auth", "x")), T0);
      migrated.recordDenial(ACME, denial(rule.id(), "send_email", "sarah", "run-1", 0));
      assertEquals(1, migrated.toolStats(ACME, "send_email").denials());
    }
    assertEquals(ControlSchema.VERSION, schemaVersion(url));
    assertEquals(10, ControlSchema.VERSION);
    // Opening again neither migrates again nor loses anything.
    try (SqlControlStore again = SqlControlStore.open(oldDir)) {
      assertEquals(Optional.of(result), again.endRun(alice, "run-1"));
      assertEquals(1, again.toolRules(ACME, "send_email").size());
      assertEquals(1, again.denials(ACME, "", 10).size());
    }
  }

  @Test
  void migrationCutShortIsFinishedOnTheNextOpen() throws Exception {
    store.close();
    String url = "jdbc:h2:file:" + dataDir.resolve("control").resolve("control").toAbsolutePath();
    // As if a migration had created some of the tool tables and died before raising the version;
    // the releases before Flyway, whose migration that was, kept no history table.
    try (Connection c = DriverManager.getConnection(url, "", "");
        Statement st = c.createStatement()) {
      st.execute("DROP TABLE \"control_schema_history\"");
      st.execute("DROP TABLE tool_denials");
      st.execute("DROP TABLE tool_failures");
      st.execute("UPDATE control_schema SET version = 1");
    }
    store = SqlControlStore.open(dataDir);
    assertEquals(ControlSchema.VERSION, schemaVersion(url));
    store.recordToolCalls(ACME, List.of(failed("bash", "timeout", "slow")), T0);
    store.recordDenial(ACME, denial("r1", "bash", "sudo", "run-1", 0));
    assertEquals(Map.of("timeout", 1L), store.toolStats(ACME, "bash").failuresByCategory());
  }

  private static int schemaVersion(String url) throws Exception {
    try (Connection c = DriverManager.getConnection(url, "", "");
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT version FROM control_schema WHERE id = 1")) {
      assertTrue(rs.next());
      return rs.getInt(1);
    }
  }

  // ---------------------------------------------------------------- helpers

  private static ToolRule rule(String id, String tool, String text, int second) {
    return rule(id, tool, text, Priority.CRITICAL, second);
  }

  private static ToolRule rule(String id, String tool, String text, Priority p, int second) {
    return rule(id, tool, text, p, Source.USER_EXPLICIT, second);
  }

  /** A rule written at {@code T0 + second}. */
  private static ToolRule rule(
      String id, String tool, String text, Priority p, Source source, int second) {
    Instant at = T0.plusSeconds(second);
    return new ToolRule(id, tool, text, p, source, List.of("t"), at, at, List.of("sarah"));
  }

  private static ToolCall ok(String tool) {
    return new ToolCall(tool, true, "", "");
  }

  private static ToolCall failed(String tool, String category, String message) {
    return new ToolCall(tool, false, category, message);
  }

  private static ToolDenial denial(
      String ruleId, String tool, String matched, String runId, int second) {
    return new ToolDenial(ruleId, tool, matched, runId, T0.plusSeconds(second));
  }

  private static List<String> ids(List<ToolRule> rules) {
    return rules.stream().map(ToolRule::id).toList();
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
