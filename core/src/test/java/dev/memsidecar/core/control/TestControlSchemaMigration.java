package dev.memsidecar.core.control;

import static dev.memsidecar.core.control.ControlFixtures.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.WriteDecision;
import dev.memsidecar.core.learning.RunReceipt;
import dev.memsidecar.core.learning.SkillVersion;
import dev.memsidecar.core.learning.TaskKey;
import dev.memsidecar.core.run.DecisionEntry;
import dev.memsidecar.core.run.DecisionQuery;
import dev.memsidecar.core.run.EndRunResult;
import dev.memsidecar.core.run.RunSnapshot;
import dev.memsidecar.core.sessions.MessageRole;
import dev.memsidecar.core.sessions.SessionKey;
import dev.memsidecar.core.sessions.SessionMessage;
import dev.memsidecar.core.sessions.SessionStore;
import dev.memsidecar.core.toolrules.ToolDenial;
import dev.memsidecar.core.toolrules.ToolRule;
import dev.memsidecar.core.toolrules.ToolStats;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control store's tables under Flyway: a new database, and one written by the last release of
 * the hand-written versioning (schema version 2; version 1 is in {@link TestToolRuleTables}), built
 * with that release's DDL and rows as it wrote them.
 */
class TestControlSchemaMigration {
  private static final Scope ALICE = Scope.user("acme", "alice");
  private static final String HISTORY =
      "SELECT \"version\" || ' ' || \"type\" FROM \"control_schema_history\""
          + " WHERE \"version\" IS NOT NULL ORDER BY \"installed_rank\"";

  @TempDir Path dataDir;

  @Test
  void aNewDatabaseRunsEveryMigrationAndKeepsTheLegacyVersion() throws SQLException {
    SqlControlStore.open(dataDir).close();
    SqlControlStore.open(dataDir).close();
    try (Connection c = connect()) {
      assertEquals(
          List.of(
              "1 SQL", "2 SQL", "3 SQL", "4 SQL", "5 SQL", "6 SQL", "7 SQL", "8 SQL", "9 JDBC",
              "10 SQL"),
          column(c, HISTORY));
      assertEquals(List.of("10"), column(c, "SELECT version FROM control_schema"));
    }
  }

  @Test
  void aSnapshotKeptBeforeCuratedMemoryReadsWithoutAHashOrSkills() throws Exception {
    RunSnapshot snapshot = ControlFixtures.snapshot("run-1", "snap-1", T0, Duration.ofDays(1));
    ObjectNode old = (ObjectNode) new ObjectMapper().readTree(ControlJson.write(snapshot));
    // What the release before version 7 wrote: no curatedHash, no skills.
    old.remove("curatedHash");
    old.remove("skills");
    RunSnapshot read = ControlJson.read(old.toString(), RunSnapshot.class, "test");
    assertEquals("", read.curatedHash());
    assertEquals(List.of(), read.skills());
    assertEquals(snapshot, read);
  }

  @Test
  void aVersionTwoDatabaseOpensWithEveryRowIntact() throws SQLException {
    EndRunResult result = ControlFixtures.result("run-1", 3);
    RunSnapshot snapshot = ControlFixtures.snapshot("run-1", "snap-1", T0, Duration.ofDays(1));
    ToolRule rule =
        new ToolRule(
            "r1",
            "send_email",
            "Never email Sarah.",
            ToolRule.Priority.CRITICAL,
            ToolRule.Source.USER_EXPLICIT,
            List.of("mail"),
            T0,
            T0.plusSeconds(1),
            List.of("sarah"));
    ToolDenial denial = new ToolDenial("r1", "send_email", "sarah@acme.test", "run-1", T0);
    try (Connection c = connect();
        Statement st = c.createStatement()) {
      for (String ddl : ControlFixtures.VERSION_1_DDL) {
        st.execute(ddl);
      }
      for (String ddl : ControlFixtures.VERSION_2_DDL) {
        st.execute(ddl);
      }
      st.execute("INSERT INTO control_schema (id, version) VALUES (1, 2)");
      insertAsVersionTwo(c, result, snapshot, rule, denial);
    }

    try (SqlControlStore store = SqlControlStore.open(dataDir)) {
      assertEquals(Optional.of(result), store.endRun(ALICE, "run-1"));
      assertEquals(Optional.of(snapshot), store.snapshot(ALICE, "run-1", T0));
      List<DecisionEntry> audit = store.decisions(new DecisionQuery(ALICE, "", null, 100, 0));
      assertEquals(result.decisions(), audit.stream().map(DecisionEntry::decision).toList());
      assertEquals(Optional.of(rule), store.toolRule("acme", "send_email", "r1"));
      assertEquals(
          new ToolStats("send_email", 3, 1, Map.of("auth", 1L), T0, "401", 1),
          store.toolStats("acme", "send_email"));
      assertEquals(List.of(denial), store.denials("acme", "", 10));
      // Writes go on where the old release stopped: the same rule keeps its id, sequences grow.
      ToolRule again =
          store.putToolRule(
              "acme",
              new ToolRule(
                  "",
                  "send_email",
                  "never email sarah",
                  ToolRule.Priority.HIGH,
                  ToolRule.Source.USER_EXPLICIT,
                  List.of(),
                  T0.plusSeconds(2),
                  T0.plusSeconds(2),
                  List.of("sarah")));
      assertEquals("r1", again.id());
      store.recordDecisions(ALICE, "", List.of(result.decisions().get(0)), T0);
      List<DecisionEntry> after = store.decisions(new DecisionQuery(ALICE, "", null, 100, 0));
      assertTrue(after.getLast().sequence() > audit.getLast().sequence());
      // A run ended before receipts existed has none; one ended now has its receipt and task.
      assertEquals(Optional.empty(), store.run(ALICE, "run-1"));
      EndRunResult later = ControlFixtures.result("run-2", 1);
      RunReceipt receipt =
          new RunReceipt(
              "run-2",
              ALICE,
              "default",
              "task-1",
              List.of(),
              List.of(new SkillVersion("search", "2")),
              null,
              later.endTime(),
              later.endTime(),
              RunReceipt.WriteCounts.of(later.decisions()),
              "",
              0);
      store.saveEndRun(ALICE, later, receipt);
      assertEquals(Optional.of(receipt), store.run(ALICE, "run-2"));
      assertEquals(
          List.of("run-2"),
          store.task(new TaskKey("acme", "alice", "task-1"), 10).orElseThrow().runIds());
    }
    try (Connection c = connect()) {
      assertEquals(
          List.of(
              "2 BASELINE",
              "3 SQL",
              "4 SQL",
              "5 SQL",
              "6 SQL",
              "7 SQL",
              "8 SQL",
              "9 JDBC",
              "10 SQL"),
          column(c, HISTORY));
      assertEquals(List.of("10"), column(c, "SELECT version FROM control_schema"));
    }
  }

  @Test
  void aVersionEightDatabaseKeepsItsPostingsAndSearchesThemFromTheIndexByTerm() throws Exception {
    SessionKey trip = new SessionKey("acme", "alice", "trip");
    Instant t = T0;
    List<SessionMessage> said =
        List.of(
            SessionMessage.of(MessageRole.USER, "Alice", "the violin recital is at seven", t)
                .stored("m1", "trip", 0, t),
            SessionMessage.of(MessageRole.ASSISTANT, "", "noted, seven it is", t)
                .stored("m2", "trip", 0, t));
    List<SessionStore.IndexTerms> terms =
        List.of(
            new SessionStore.IndexTerms(Map.of("violin", 1, "recital", 1, "seven", 1), Map.of()),
            new SessionStore.IndexTerms(
                Map.of("noted", 1, "seven", 1), Map.of("violin", 1, "recital", 1, "seven", 1)));
    try (SqlControlStore store = SqlControlStore.open(dataDir)) {
      ControlFixtures.appendAndIndex(store, trip, said, terms, t);
    }
    // Back to the layout of version 8: the postings under their primary key, no index by term,
    // written with their messages.
    try (Connection c = connect();
        Statement st = c.createStatement()) {
      st.execute("DROP INDEX session_terms_by_term");
      st.execute(
          "ALTER TABLE session_terms ADD PRIMARY KEY (workspace_id, user_id, term, session_id,"
              + " seq)");
      st.execute("DROP TABLE session_unindexed");
      st.execute("DELETE FROM \"control_schema_history\" WHERE \"version\" IN ('9', '10')");
      st.execute("UPDATE control_schema SET version = 8");
    }
    try (SqlControlStore store = SqlControlStore.open(dataDir)) {
      assertEquals(
          List.of(1L, 2L),
          store
              .bm25(trip.owner(), Set.of("violin"), SessionStore.Filter.NONE, 10, List.of())
              .stream()
              .map(SessionStore.Match::sequence)
              .toList());
      ControlFixtures.appendAndIndex(
          store,
          trip,
          List.of(
              SessionMessage.of(MessageRole.USER, "Alice", "bring the violin", t)
                  .stored("m3", "trip", 0, t)),
          List.of(new SessionStore.IndexTerms(Map.of("bring", 1, "violin", 1), Map.of())),
          t);
      assertEquals(
          3,
          store
              .bm25(trip.owner(), Set.of("violin"), SessionStore.Filter.NONE, 10, List.of())
              .size());
    }
    try (Connection c = connect()) {
      assertEquals(List.of("10"), column(c, "SELECT version FROM control_schema"));
      // A search reads a term's postings from the index by term, which holds every column it
      // reads: no posting's row is looked up.
      String plan =
          column(
                  c,
                  "EXPLAIN SELECT term, session_id, seq, tf, context_tf, term_count,"
                      + " context_count FROM session_terms WHERE workspace_id = 'acme'"
                      + " AND user_id = 'alice' AND term = 'violin'")
              .get(0);
      assertTrue(plan.contains("SESSION_TERMS_BY_TERM"), plan);
    }
  }

  /** Rows as the release of schema version 2 wrote them. */
  private static void insertAsVersionTwo(
      Connection c, EndRunResult result, RunSnapshot snapshot, ToolRule rule, ToolDenial denial)
      throws SQLException {
    String key = "'acme', 'alice', '', '', 'run-1'";
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO run_results (workspace_id, user_id, agent_id, session_id, run_id,"
                + " end_at, result_json) VALUES ("
                + key
                + ", ?, ?)")) {
      st.setLong(1, ControlSchema.nanos(result.endTime()));
      st.setString(2, ControlJson.write(result));
      st.executeUpdate();
    }
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO run_snapshots (workspace_id, user_id, agent_id, session_id, run_id,"
                + " snapshot_id, created_at, expire_at, snapshot_json) VALUES ("
                + key
                + ", ?, ?, ?, ?)")) {
      st.setString(1, snapshot.snapshotId());
      st.setLong(2, ControlSchema.nanos(snapshot.createTime()));
      st.setLong(3, ControlSchema.nanos(snapshot.expireTime()));
      st.setString(4, ControlJson.write(snapshot));
      st.executeUpdate();
    }
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO write_decisions (workspace_id, user_id, agent_id, session_id, run_id,"
                + " decided_at, outcome, decision_json) VALUES ("
                + key
                + ", ?, ?, ?)")) {
      for (WriteDecision d : result.decisions()) {
        st.setLong(1, ControlSchema.nanos(result.endTime()));
        st.setString(2, d.outcome().name());
        st.setString(3, ControlJson.write(d));
        st.executeUpdate();
      }
    }
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO tool_rules (workspace_id, tool_name, id, rule, rule_key, priority,"
                + " source, tags_json, objects_json, created_at, updated_at)"
                + " VALUES ('acme', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      st.setString(1, rule.toolName());
      st.setString(2, rule.id());
      st.setString(3, rule.rule());
      st.setString(4, ToolRuleText.key(rule.rule()));
      st.setString(5, rule.priority().name());
      st.setString(6, rule.source().name());
      st.setString(7, ControlJson.write(rule.tags()));
      st.setString(8, ControlJson.write(rule.objects()));
      st.setLong(9, ControlSchema.nanos(rule.createTime()));
      st.setLong(10, ControlSchema.nanos(rule.updateTime()));
      st.executeUpdate();
    }
    try (Statement st = c.createStatement()) {
      st.executeUpdate(
          "INSERT INTO tool_stats (workspace_id, tool_name, calls, failures, denials,"
              + " last_failure_at, last_error) VALUES ('acme', 'send_email', 3, 1, 1, "
              + ControlSchema.nanos(T0)
              + ", '401')");
      st.executeUpdate(
          "INSERT INTO tool_failures (workspace_id, tool_name, category, failures)"
              + " VALUES ('acme', 'send_email', 'auth', 1)");
    }
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO tool_denials (workspace_id, tool_name, rule_id, matched_object, run_id,"
                + " denied_at) VALUES ('acme', ?, ?, ?, ?, ?)")) {
      st.setString(1, denial.toolName());
      st.setString(2, denial.ruleId());
      st.setString(3, denial.matchedObject());
      st.setString(4, denial.runId());
      st.setLong(5, ControlSchema.nanos(denial.time()));
      st.executeUpdate();
    }
  }

  private Connection connect() throws SQLException {
    String url = "jdbc:h2:file:" + dataDir.resolve("control").resolve("control").toAbsolutePath();
    return DriverManager.getConnection(url, "", "");
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
