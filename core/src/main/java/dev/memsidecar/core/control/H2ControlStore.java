package dev.memsidecar.core.control;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.ToolCall;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.StartupException;
import dev.memsidecar.core.WriteDecision;
import dev.memsidecar.core.run.EndRunResult;
import dev.memsidecar.core.run.RunSnapshot;
import dev.memsidecar.core.toolrules.ToolDenial;
import dev.memsidecar.core.toolrules.ToolRule;
import dev.memsidecar.core.toolrules.ToolStats;
import dev.memsidecar.jdbc.h2.H2Housekeeping;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The {@link ControlStore} in an SQL database over plain JDBC: an embedded H2 file under the data
 * directory by default ({@link #open(Path)}), any H2 URL with {@link #open(String, Properties)}.
 * What differs between databases is behind {@link ControlDialect}; the tables are described in
 * {@link ControlSchema}, the JSON they hold in {@link ControlJson}.
 *
 * <p>Every write is committed before its method returns, with H2's {@code WRITE_DELAY=0}: a {@code
 * kill -9} of the process loses nothing acknowledged (a power cut may: there is no fsync). H2's
 * {@code FILE_LOCK=FS} keeps a second process out of the same database.
 *
 * <p>First writer wins: a snapshot is inserted under its run's primary key, and when the key exists
 * the stored snapshot is returned if still live, or replaced only if it is the same expired one
 * that was read (a compare-and-set on its snapshot id), so two concurrent BeginRuns of one run get
 * one snapshot. An EndRun result and its decisions are inserted in one transaction; a retry that
 * finds the result, or loses the insert race, returns the stored one and appends nothing.
 *
 * <p>Audit order: appends to the audit are serialized in this process, so the sequence order is the
 * commit order and a reader paging with {@code afterSequence} never skips a decision committed
 * later with a smaller sequence.
 *
 * <p>Tool rules: a rule is keyed by its id and, apart, by its normalised text ({@link
 * ToolRuleText}), both unique per workspace and tool. A put updates the row of the same id, else
 * the row of the same text (keeping that row's id and create time), else inserts; an insert that
 * loses a race to a concurrent put of the same rule fails on the unique key and updates the
 * winner's row instead, so the same rule is always one row. A rule without an id gets a random
 * UUID. Tool stats and a denial with its count are each written in one transaction; two writers of
 * one tool's stats wait for each other on its row, and one that loses the race to create it starts
 * its transaction again.
 *
 * <p>Open one store per database in a process: H2 lets a second {@code open} of the same file in
 * the same JVM share the database, but the two stores would not share the audit's ordering.
 *
 * <p>Thread-safe: each call borrows one of {@value #POOL_SIZE} connections. After {@link #close()}
 * every method fails with FAILED_PRECONDITION; a database error is UNAVAILABLE (naming the
 * operation and SQLSTATE).
 */
public final class H2ControlStore implements ControlStore {
  /** Connections kept open. */
  static final int POOL_SIZE = 4;

  /** How often a save re-reads and retries after losing a race, before it gives up (ABORTED). */
  private static final int SAVE_ATTEMPTS = 8;

  private static final System.Logger LOG = System.getLogger(H2ControlStore.class.getName());

  private static final String KEY =
      "workspace_id = ? AND user_id = ? AND agent_id = ? AND session_id = ? AND run_id = ?";
  private static final String INSERT_DECISION =
      "INSERT INTO "
          + ControlSchema.DECISIONS
          + " (workspace_id, user_id, agent_id, session_id, run_id, decided_at, outcome,"
          + " decision_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

  private static final String RULE_COLUMNS =
      "id, tool_name, rule, priority, source, tags_json, objects_json, created_at, updated_at";
  private static final String RULE_ORDER = ruleOrder();

  /** The failure category of a failed call that names none. */
  static final String UNKNOWN_CATEGORY = "unknown";

  private final String url;
  private final ControlDialect dialect;
  private final ControlConnections connections;
  private final H2Housekeeping housekeeping;
  private final ReentrantLock auditLock = new ReentrantLock();
  private final ConcurrentLinkedQueue<PendingDecisions> pendingDecisions =
      new ConcurrentLinkedQueue<>();

  private H2ControlStore(
      String url,
      ControlDialect dialect,
      ControlConnections connections,
      H2Housekeeping housekeeping) {
    this.url = url;
    this.dialect = dialect;
    this.connections = connections;
    this.housekeeping = housekeeping;
  }

  /**
   * Opens (creating if needed) the embedded H2 database {@code <dataDir>/control/control.mv.db}.
   *
   * @throws StartupException if it cannot be opened (another process holds it, a newer release
   *     wrote it, the directory cannot be made); the message names the path
   */
  public static H2ControlStore open(Path dataDir) {
    requireNonNull(dataDir, "dataDir is null");
    Path dir = dataDir.resolve("control").toAbsolutePath();
    if (dir.toString().indexOf(';') >= 0) {
      throw new StartupException(
          "the control store cannot live in " + dir + ": H2 URLs cannot hold a ';'");
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new StartupException("cannot create the control store directory " + dir + ": " + e, e);
    }
    return open("jdbc:h2:file:" + dir.resolve("control"), new Properties());
  }

  /**
   * Opens the control store at a JDBC URL ({@code jdbc:h2:} only, until another dialect exists),
   * creating its tables if needed. H2 options that would break durability ({@code WRITE_DELAY}
   * other than 0, {@code FILE_LOCK=NO}) are refused; the ones the store needs are added.
   *
   * @param credentials given to the driver as they are ({@code user}, {@code password}); never
   *     shown, so a password belongs here and not in the URL, which messages show
   * @throws StartupException if the URL is refused or the database cannot be opened
   */
  public static H2ControlStore open(String jdbcUrl, Properties credentials) {
    requireNonNull(jdbcUrl, "jdbcUrl is null");
    requireNonNull(credentials, "credentials is null");
    ControlDialect dialect;
    String url;
    try {
      dialect = ControlDialect.forUrl(jdbcUrl);
      url = dialect.connectionUrl(jdbcUrl);
    } catch (IllegalArgumentException e) {
      throw new StartupException(
          "cannot open the control store at " + jdbcUrl + ": " + e.getMessage());
    }
    Properties props = new Properties();
    props.putAll(credentials);
    ControlConnections connections = null;
    H2Housekeeping housekeeping;
    try {
      connections =
          new ControlConnections(() -> DriverManager.getConnection(url, props), POOL_SIZE);
      int found = connections.call(c -> ControlSchema.ensure(c, dialect));
      if (found > ControlSchema.VERSION) {
        throw new StartupException(
            "cannot open the control store at "
                + url
                + ": its tables are at schema version "
                + found
                + ", written by a later release; this one reads up to "
                + ControlSchema.VERSION);
      }
      housekeeping = connections.call(c -> H2Housekeeping.start(c, "the control store"));
    } catch (SQLException e) {
      closeQuietly(connections);
      throw new StartupException(
          "cannot open the control store at " + url + ": " + firstLine(e.getMessage()), e);
    } catch (RuntimeException e) {
      closeQuietly(connections);
      throw e;
    }
    LOG.log(Level.INFO, () -> "control store opened at " + url + " (" + dialect.name() + ")");
    return new H2ControlStore(url, dialect, connections, housekeeping);
  }

  @Override
  public Optional<RunSnapshot> snapshot(Scope scope, String runId, Instant now) {
    requireNonNull(scope, "scope is null");
    requireNonNull(runId, "runId is null");
    requireNonNull(now, "now is null");
    return run(
        "read the snapshot of run " + runId,
        c -> readSnapshot(c, scope, runId).filter(s -> s.expireTime().isAfter(now)));
  }

  @Override
  public RunSnapshot saveSnapshot(Scope scope, RunSnapshot snapshot, Instant now) {
    requireNonNull(scope, "scope is null");
    requireNonNull(snapshot, "snapshot is null");
    requireNonNull(now, "now is null");
    String runId = snapshot.runId();
    String json = ControlJson.write(snapshot);
    return run(
        "save the snapshot of run " + runId,
        c -> {
          for (int attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
            Optional<RunSnapshot> stored = readSnapshot(c, scope, runId);
            if (stored.isEmpty()) {
              if (insertSnapshot(c, scope, snapshot, json)) {
                return snapshot;
              }
            } else if (stored.get().expireTime().isAfter(now)) {
              return stored.get();
            } else if (replaceSnapshot(c, scope, stored.get(), snapshot, json)) {
              return snapshot;
            }
            // Another writer got in between: read what it wrote.
          }
          throw MemoryException.aborted(
              "saving the snapshot of run " + runId + " lost " + SAVE_ATTEMPTS + " races; retry");
        });
  }

  @Override
  public int deleteExpiredSnapshots(Instant now) {
    requireNonNull(now, "now is null");
    return run(
        "delete expired snapshots",
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "DELETE FROM " + ControlSchema.SNAPSHOTS + " WHERE expire_at <= ?")) {
            st.setLong(1, ControlSchema.nanos(now));
            return st.executeUpdate();
          }
        });
  }

  @Override
  public Optional<EndRunResult> endRun(Scope scope, String runId) {
    requireNonNull(scope, "scope is null");
    requireNonNull(runId, "runId is null");
    return run("read the result of run " + runId, c -> readResult(c, scope, runId));
  }

  @Override
  public EndRunResult saveEndRun(Scope scope, EndRunResult result) {
    requireNonNull(scope, "scope is null");
    requireNonNull(result, "result is null");
    String runId = result.runId();
    long decidedAt = ControlSchema.exactNanos(result.endTime(), "endTime");
    String json = ControlJson.write(result);
    List<String> decisions = result.decisions().stream().map(ControlJson::write).toList();
    return appendToAudit(
        "save the result of run " + runId,
        c -> {
          for (int attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
            Optional<EndRunResult> stored = readResult(c, scope, runId);
            if (stored.isPresent()) {
              return stored.get();
            }
            try {
              inTransaction(
                  c,
                  () -> {
                    try (PreparedStatement st =
                        c.prepareStatement(
                            "INSERT INTO "
                                + ControlSchema.RESULTS
                                + " (workspace_id, user_id, agent_id, session_id, run_id, end_at,"
                                + " result_json) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                      bindKey(st, scope, runId);
                      st.setLong(6, decidedAt);
                      st.setString(7, json);
                      st.executeUpdate();
                    }
                    insertDecisions(c, scope, runId, decidedAt, result.decisions(), decisions);
                    return null;
                  });
              return result;
            } catch (SQLException e) {
              if (!dialect.isDuplicateKey(e)) {
                throw e;
              }
              // Another process ended the run first: read its result.
            }
          }
          throw MemoryException.aborted(
              "saving the result of run " + runId + " lost " + SAVE_ATTEMPTS + " races; retry");
        });
  }

  @Override
  public void recordDecisions(
      Scope scope, String runId, List<WriteDecision> decisions, Instant time) {
    requireNonNull(scope, "scope is null");
    requireNonNull(runId, "runId is null");
    requireNonNull(decisions, "decisions is null");
    requireNonNull(time, "time is null");
    long decidedAt = ControlSchema.exactNanos(time, "time");
    List<WriteDecision> all = List.copyOf(decisions);
    if (all.isEmpty()) {
      return;
    }
    List<String> json = all.stream().map(ControlJson::write).toList();
    PendingDecisions mine =
        new PendingDecisions(scope, runId, decidedAt, all, json, new CompletableFuture<>());
    pendingDecisions.add(mine);
    auditLock.lock();
    try {
      if (!mine.written().isDone()) {
        // Group commit: whoever holds the lock writes every waiting caller's decisions in one
        // transaction; the others find theirs written when they get the lock.
        List<PendingDecisions> batch = new ArrayList<>();
        for (PendingDecisions p; (p = pendingDecisions.poll()) != null; ) {
          batch.add(p);
        }
        try {
          run(
              "record " + batch.size() + " callers' decisions",
              c ->
                  inTransaction(
                      c,
                      () -> {
                        for (PendingDecisions p : batch) {
                          insertDecisions(
                              c, p.scope(), p.runId(), p.decidedAt(), p.all(), p.json());
                        }
                        return true;
                      }));
          batch.forEach(p -> p.written().complete(null));
        } catch (RuntimeException | Error e) {
          batch.forEach(p -> p.written().completeExceptionally(e));
        }
      }
    } finally {
      auditLock.unlock();
    }
    try {
      mine.written().join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw (RuntimeException) e.getCause();
    }
  }

  /** One caller's decisions waiting for the audit's next transaction. */
  private record PendingDecisions(
      Scope scope,
      String runId,
      long decidedAt,
      List<WriteDecision> all,
      List<String> json,
      CompletableFuture<Void> written) {}

  @Override
  public List<DecisionEntry> decisions(DecisionQuery query) {
    requireNonNull(query, "query is null");
    Scope scope = query.scope();
    StringBuilder sql =
        new StringBuilder(
            "SELECT seq, workspace_id, user_id, agent_id, session_id, run_id, decided_at,"
                + " decision_json FROM "
                + ControlSchema.DECISIONS
                + " WHERE workspace_id = ? AND seq > ?");
    List<String> args = new ArrayList<>();
    narrow(sql, args, "user_id", scope.userId());
    narrow(sql, args, "agent_id", scope.agentId());
    narrow(sql, args, "session_id", scope.sessionId());
    narrow(sql, args, "run_id", query.runId());
    if (query.outcome() != null) {
      narrow(sql, args, "outcome", query.outcome().name());
    }
    sql.append(" ORDER BY seq LIMIT ?");
    return run(
        "list write decisions",
        c -> {
          try (PreparedStatement st = c.prepareStatement(sql.toString())) {
            int i = 1;
            st.setString(i++, scope.workspaceId());
            st.setLong(i++, query.afterSequence());
            for (String arg : args) {
              st.setString(i++, arg);
            }
            st.setInt(i, query.pageSize());
            List<DecisionEntry> page = new ArrayList<>();
            try (ResultSet rs = st.executeQuery()) {
              while (rs.next()) {
                long seq = rs.getLong(1);
                page.add(
                    new DecisionEntry(
                        seq,
                        rs.getString(6),
                        ControlSchema.instant(rs.getLong(7)),
                        new Scope(
                            rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5)),
                        ControlJson.read(
                            rs.getString(8), WriteDecision.class, "write decision " + seq)));
              }
            }
            return List.copyOf(page);
          }
        });
  }

  // ---------------------------------------------------------------- tool rules, stats, denials

  @Override
  public ToolRule putToolRule(String workspaceId, ToolRule rule) {
    requireNonNull(workspaceId, "workspaceId is null");
    requireNonNull(rule, "rule is null");
    String tool = rule.toolName();
    if (tool.isEmpty()) {
      throw MemoryException.invalidArgument("rule.tool_name", "a tool rule needs a tool name");
    }
    String key = ToolRuleText.key(rule.rule());
    if (key.isEmpty()) {
      throw MemoryException.invalidArgument(
          "rule.rule", "the rule of tool " + tool + " has no words: \"" + rule.rule() + "\"");
    }
    long created = ControlSchema.exactNanos(rule.createTime(), "createTime");
    long updated = ControlSchema.exactNanos(rule.updateTime(), "updateTime");
    RuleRow row =
        new RuleRow(
            rule,
            key,
            ControlJson.write(rule.tags()),
            ControlJson.write(rule.objects()),
            created,
            updated);
    return run(
        "put a rule of tool " + tool,
        c -> {
          for (int attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
            if (!rule.id().isEmpty()) {
              Optional<Long> byId = ruleCreatedAt(c, workspaceId, tool, rule.id());
              if (byId.isPresent()) {
                try {
                  if (updateRule(c, workspaceId, rule.id(), null, row)) {
                    return stored(rule, rule.id(), byId.get());
                  }
                } catch (SQLException e) {
                  if (!dialect.isDuplicateKey(e)) {
                    throw e;
                  }
                  throw sameTextElsewhere(c, workspaceId, rule, key);
                }
                continue; // deleted in between: start again
              }
            }
            Optional<String> byText = ruleId(c, workspaceId, tool, key);
            if (byText.isPresent()) {
              Optional<Long> createdAt = ruleCreatedAt(c, workspaceId, tool, byText.get());
              if (createdAt.isPresent() && updateRule(c, workspaceId, byText.get(), key, row)) {
                return stored(rule, byText.get(), createdAt.get());
              }
              continue; // changed or deleted in between: start again
            }
            String id = rule.id().isEmpty() ? UUID.randomUUID().toString() : rule.id();
            if (insertRule(c, workspaceId, id, row)) {
              return stored(rule, id, created);
            }
            // Another writer inserted the same id or the same text first: update that row.
          }
          throw MemoryException.aborted(
              "putting a rule of tool " + tool + " lost " + SAVE_ATTEMPTS + " races; retry");
        });
  }

  @Override
  public Optional<ToolRule> toolRule(String workspaceId, String toolName, String id) {
    requireNonNull(workspaceId, "workspaceId is null");
    requireNonNull(toolName, "toolName is null");
    requireNonNull(id, "id is null");
    return run(
        "read rule " + id + " of tool " + toolName,
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT "
                      + RULE_COLUMNS
                      + " FROM "
                      + ControlSchema.TOOL_RULES
                      + " WHERE workspace_id = ? AND tool_name = ? AND id = ?")) {
            st.setString(1, workspaceId);
            st.setString(2, toolName);
            st.setString(3, id);
            try (ResultSet rs = st.executeQuery()) {
              return rs.next() ? Optional.of(readRule(rs)) : Optional.empty();
            }
          }
        });
  }

  @Override
  public List<ToolRule> toolRules(String workspaceId, String toolName) {
    requireNonNull(workspaceId, "workspaceId is null");
    requireNonNull(toolName, "toolName is null");
    String sql =
        "SELECT "
            + RULE_COLUMNS
            + " FROM "
            + ControlSchema.TOOL_RULES
            + " WHERE workspace_id = ?"
            + (toolName.isEmpty() ? "" : " AND tool_name = ?")
            + RULE_ORDER;
    return run(
        toolName.isEmpty() ? "list tool rules" : "list the rules of tool " + toolName,
        c -> {
          try (PreparedStatement st = c.prepareStatement(sql)) {
            st.setString(1, workspaceId);
            if (!toolName.isEmpty()) {
              st.setString(2, toolName);
            }
            List<ToolRule> rules = new ArrayList<>();
            try (ResultSet rs = st.executeQuery()) {
              while (rs.next()) {
                rules.add(readRule(rs));
              }
            }
            return List.copyOf(rules);
          }
        });
  }

  @Override
  public boolean deleteToolRule(String workspaceId, String toolName, String id) {
    requireNonNull(workspaceId, "workspaceId is null");
    requireNonNull(toolName, "toolName is null");
    requireNonNull(id, "id is null");
    return run(
        "delete rule " + id + " of tool " + toolName,
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "DELETE FROM "
                      + ControlSchema.TOOL_RULES
                      + " WHERE workspace_id = ? AND tool_name = ? AND id = ?")) {
            st.setString(1, workspaceId);
            st.setString(2, toolName);
            st.setString(3, id);
            return st.executeUpdate() > 0;
          }
        });
  }

  @Override
  public void recordToolCalls(String workspaceId, List<ToolCall> calls, Instant time) {
    requireNonNull(workspaceId, "workspaceId is null");
    requireNonNull(calls, "calls is null");
    requireNonNull(time, "time is null");
    long at = ControlSchema.exactNanos(time, "time");
    Map<String, CallTally> byTool = new TreeMap<>();
    for (ToolCall call : calls) {
      requireNonNull(call, "calls holds a null");
      if (!call.toolName().isEmpty()) {
        byTool.computeIfAbsent(call.toolName(), t -> new CallTally()).add(call);
      }
    }
    if (byTool.isEmpty()) {
      return;
    }
    // Rows are locked in (tool, category) order, so two runs recording at once cannot deadlock.
    run(
        "record " + calls.size() + " tool calls",
        c ->
            inTransactionRetried(
                c,
                "recording tool calls",
                () -> {
                  for (Map.Entry<String, CallTally> e : byTool.entrySet()) {
                    CallTally tally = e.getValue();
                    addToStats(c, workspaceId, e.getKey(), tally, 0, at);
                    for (Map.Entry<String, Long> f : tally.byCategory.entrySet()) {
                      addFailures(c, workspaceId, e.getKey(), f.getKey(), f.getValue());
                    }
                  }
                  return null;
                }));
  }

  @Override
  public void recordDenial(String workspaceId, ToolDenial denial) {
    requireNonNull(workspaceId, "workspaceId is null");
    requireNonNull(denial, "denial is null");
    String tool = denial.toolName();
    if (tool.isEmpty()) {
      throw MemoryException.invalidArgument("denial.tool_name", "a denial needs a tool name");
    }
    long at = ControlSchema.exactNanos(denial.time(), "time");
    String matched = ToolRuleText.cut(denial.matchedObject(), ControlSchema.MAX_MATCHED_OBJECT);
    run(
        "record a denial of tool " + tool,
        c ->
            inTransactionRetried(
                c,
                "recording a denial",
                () -> {
                  try (PreparedStatement st =
                      c.prepareStatement(
                          "INSERT INTO "
                              + ControlSchema.TOOL_DENIALS
                              + " (workspace_id, tool_name, rule_id, matched_object, run_id,"
                              + " denied_at) VALUES (?, ?, ?, ?, ?, ?)")) {
                    st.setString(1, workspaceId);
                    st.setString(2, tool);
                    st.setString(3, denial.ruleId());
                    st.setString(4, matched);
                    st.setString(5, denial.runId());
                    st.setLong(6, at);
                    st.executeUpdate();
                  }
                  addToStats(c, workspaceId, tool, new CallTally(), 1, at);
                  return null;
                }));
  }

  @Override
  public List<ToolDenial> denials(String workspaceId, String toolName, int limit) {
    requireNonNull(workspaceId, "workspaceId is null");
    requireNonNull(toolName, "toolName is null");
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1: " + limit);
    }
    String sql =
        "SELECT rule_id, tool_name, matched_object, run_id, denied_at FROM "
            + ControlSchema.TOOL_DENIALS
            + " WHERE workspace_id = ?"
            + (toolName.isEmpty() ? "" : " AND tool_name = ?")
            + " ORDER BY denied_at DESC, seq DESC LIMIT ?";
    return run(
        toolName.isEmpty() ? "list denials" : "list the denials of tool " + toolName,
        c -> {
          try (PreparedStatement st = c.prepareStatement(sql)) {
            int i = 1;
            st.setString(i++, workspaceId);
            if (!toolName.isEmpty()) {
              st.setString(i++, toolName);
            }
            st.setInt(i, limit);
            List<ToolDenial> out = new ArrayList<>();
            try (ResultSet rs = st.executeQuery()) {
              while (rs.next()) {
                out.add(
                    new ToolDenial(
                        rs.getString(1),
                        rs.getString(2),
                        rs.getString(3),
                        rs.getString(4),
                        ControlSchema.instant(rs.getLong(5))));
              }
            }
            return List.copyOf(out);
          }
        });
  }

  @Override
  public ToolStats toolStats(String workspaceId, String toolName) {
    requireNonNull(workspaceId, "workspaceId is null");
    requireNonNull(toolName, "toolName is null");
    return run(
        "read the stats of tool " + toolName,
        c -> {
          // One statement, so the counts and the categories come from one committed state.
          try (PreparedStatement st =
              c.prepareStatement(
                  "SELECT s.calls, s.failures, s.last_failure_at, s.last_error, s.denials,"
                      + " f.category, f.failures FROM "
                      + ControlSchema.TOOL_STATS
                      + " s LEFT JOIN "
                      + ControlSchema.TOOL_FAILURES
                      + " f ON f.workspace_id = s.workspace_id AND f.tool_name = s.tool_name"
                      + " WHERE s.workspace_id = ? AND s.tool_name = ?")) {
            st.setString(1, workspaceId);
            st.setString(2, toolName);
            try (ResultSet rs = st.executeQuery()) {
              if (!rs.next()) {
                return ToolStats.none(toolName);
              }
              long calls = rs.getLong(1);
              long failures = rs.getLong(2);
              long lastFailure = rs.getLong(3);
              Instant lastFailureTime = rs.wasNull() ? null : ControlSchema.instant(lastFailure);
              String lastError = rs.getString(4);
              long denials = rs.getLong(5);
              Map<String, Long> byCategory = new TreeMap<>();
              do {
                String category = rs.getString(6);
                if (category != null) {
                  byCategory.put(category, rs.getLong(7));
                }
              } while (rs.next());
              return new ToolStats(
                  toolName, calls, failures, byCategory, lastFailureTime, lastError, denials);
            }
          }
        });
  }

  /** Closes the connections; the database file stays. Idempotent. */
  @Override
  public void close() {
    if (!connections.isClosed()) {
      housekeeping.close();
      connections.close();
      LOG.log(Level.DEBUG, () -> "control store at " + url + " closed");
    }
  }

  private static void narrow(StringBuilder sql, List<String> args, String column, String value) {
    if (!value.isEmpty()) {
      sql.append(" AND ").append(column).append(" = ?");
      args.add(value);
    }
  }

  private static Optional<RunSnapshot> readSnapshot(Connection c, Scope scope, String runId)
      throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT snapshot_json FROM " + ControlSchema.SNAPSHOTS + " WHERE " + KEY)) {
      bindKey(st, scope, runId);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next()
            ? Optional.of(
                ControlJson.read(
                    rs.getString(1), RunSnapshot.class, "the snapshot of run " + runId))
            : Optional.empty();
      }
    }
  }

  /** Inserts {@code snapshot}; false if the run has a snapshot already. */
  private boolean insertSnapshot(Connection c, Scope scope, RunSnapshot snapshot, String json)
      throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO "
                + ControlSchema.SNAPSHOTS
                + " (workspace_id, user_id, agent_id, session_id, run_id, snapshot_id,"
                + " created_at, expire_at, snapshot_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      bindKey(st, scope, snapshot.runId());
      st.setString(6, snapshot.snapshotId());
      st.setLong(7, ControlSchema.nanos(snapshot.createTime()));
      st.setLong(8, ControlSchema.nanos(snapshot.expireTime()));
      st.setString(9, json);
      st.executeUpdate();
      return true;
    } catch (SQLException e) {
      if (dialect.isDuplicateKey(e)) {
        return false;
      }
      throw e;
    }
  }

  /** Replaces {@code expired} by {@code snapshot}; false if another writer replaced it first. */
  private static boolean replaceSnapshot(
      Connection c, Scope scope, RunSnapshot expired, RunSnapshot snapshot, String json)
      throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "UPDATE "
                + ControlSchema.SNAPSHOTS
                + " SET snapshot_id = ?, created_at = ?, expire_at = ?, snapshot_json = ? WHERE "
                + KEY
                + " AND snapshot_id = ? AND expire_at = ?")) {
      st.setString(1, snapshot.snapshotId());
      st.setLong(2, ControlSchema.nanos(snapshot.createTime()));
      st.setLong(3, ControlSchema.nanos(snapshot.expireTime()));
      st.setString(4, json);
      bindKey(st, 5, scope, snapshot.runId());
      st.setString(10, expired.snapshotId());
      st.setLong(11, ControlSchema.nanos(expired.expireTime()));
      return st.executeUpdate() == 1;
    }
  }

  private static Optional<EndRunResult> readResult(Connection c, Scope scope, String runId)
      throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement("SELECT result_json FROM " + ControlSchema.RESULTS + " WHERE " + KEY)) {
      bindKey(st, scope, runId);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next()
            ? Optional.of(
                ControlJson.read(rs.getString(1), EndRunResult.class, "the result of run " + runId))
            : Optional.empty();
      }
    }
  }

  private static void insertDecisions(
      Connection c,
      Scope scope,
      String runId,
      long decidedAt,
      List<WriteDecision> decisions,
      List<String> json)
      throws SQLException {
    if (decisions.isEmpty()) {
      return;
    }
    try (PreparedStatement st = c.prepareStatement(INSERT_DECISION)) {
      for (int i = 0; i < decisions.size(); i++) {
        bindKey(st, scope, runId);
        st.setLong(6, decidedAt);
        st.setString(7, decisions.get(i).outcome().name());
        st.setString(8, json.get(i));
        st.addBatch();
      }
      st.executeBatch();
    }
  }

  private static void bindKey(PreparedStatement st, Scope scope, String runId) throws SQLException {
    bindKey(st, 1, scope, runId);
  }

  private static void bindKey(PreparedStatement st, int first, Scope scope, String runId)
      throws SQLException {
    st.setString(first, scope.workspaceId());
    st.setString(first + 1, scope.userId());
    st.setString(first + 2, scope.agentId());
    st.setString(first + 3, scope.sessionId());
    st.setString(first + 4, runId);
  }

  /** A rule to write, with what it is stored as. */
  private record RuleRow(
      ToolRule rule, String key, String tags, String objects, long created, long updated) {}

  /** {@code rule} as stored under {@code id}, first written at {@code created}. */
  private static ToolRule stored(ToolRule rule, String id, long created) {
    return new ToolRule(
        id,
        rule.toolName(),
        rule.rule(),
        rule.priority(),
        rule.source(),
        rule.tags(),
        ControlSchema.instant(created),
        rule.updateTime(),
        rule.objects());
  }

  /** The create time of rule {@code id} of {@code tool}, if there is one. */
  private static Optional<Long> ruleCreatedAt(
      Connection c, String workspaceId, String tool, String id) throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT created_at FROM "
                + ControlSchema.TOOL_RULES
                + " WHERE workspace_id = ? AND tool_name = ? AND id = ?")) {
      st.setString(1, workspaceId);
      st.setString(2, tool);
      st.setString(3, id);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? Optional.of(rs.getLong(1)) : Optional.empty();
      }
    }
  }

  /** The id of the rule of {@code tool} whose normalised text has {@code key}, if there is one. */
  private static Optional<String> ruleId(Connection c, String workspaceId, String tool, String key)
      throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT id FROM "
                + ControlSchema.TOOL_RULES
                + " WHERE workspace_id = ? AND tool_name = ? AND rule_key = ?")) {
      st.setString(1, workspaceId);
      st.setString(2, tool);
      st.setString(3, key);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
      }
    }
  }

  /**
   * Overwrites rule {@code id} with {@code row}, keeping its create time; only while its key is
   * still {@code expectedKey} unless that is null. False if no such row.
   */
  private static boolean updateRule(
      Connection c, String workspaceId, String id, String expectedKey, RuleRow row)
      throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "UPDATE "
                + ControlSchema.TOOL_RULES
                + " SET rule = ?, rule_key = ?, priority = ?, source = ?, tags_json = ?,"
                + " objects_json = ?, updated_at = ?"
                + " WHERE workspace_id = ? AND tool_name = ? AND id = ?"
                + (expectedKey == null ? "" : " AND rule_key = ?"))) {
      st.setString(1, row.rule().rule());
      st.setString(2, row.key());
      st.setString(3, row.rule().priority().name());
      st.setString(4, row.rule().source().name());
      st.setString(5, row.tags());
      st.setString(6, row.objects());
      st.setLong(7, row.updated());
      st.setString(8, workspaceId);
      st.setString(9, row.rule().toolName());
      st.setString(10, id);
      if (expectedKey != null) {
        st.setString(11, expectedKey);
      }
      return st.executeUpdate() == 1;
    }
  }

  /** Inserts {@code row} as rule {@code id}; false if its id or its text is taken. */
  private boolean insertRule(Connection c, String workspaceId, String id, RuleRow row)
      throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO "
                + ControlSchema.TOOL_RULES
                + " (workspace_id, tool_name, id, rule, rule_key, priority, source, tags_json,"
                + " objects_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                + " ?)")) {
      st.setString(1, workspaceId);
      st.setString(2, row.rule().toolName());
      st.setString(3, id);
      st.setString(4, row.rule().rule());
      st.setString(5, row.key());
      st.setString(6, row.rule().priority().name());
      st.setString(7, row.rule().source().name());
      st.setString(8, row.tags());
      st.setString(9, row.objects());
      st.setLong(10, row.created());
      st.setLong(11, row.updated());
      st.executeUpdate();
      return true;
    } catch (SQLException e) {
      if (dialect.isDuplicateKey(e)) {
        return false;
      }
      throw e;
    }
  }

  /** ALREADY_EXISTS: rule {@code rule.id()} cannot take a text another rule of its tool has. */
  private static MemoryException sameTextElsewhere(
      Connection c, String workspaceId, ToolRule rule, String key) throws SQLException {
    String other = ruleId(c, workspaceId, rule.toolName(), key).orElse("another rule");
    return new MemoryException(
        MemoryException.Code.ALREADY_EXISTS,
        "rule.rule",
        "rule "
            + rule.id()
            + " of tool "
            + rule.toolName()
            + " cannot take the text of rule "
            + other
            + " (the same rule once case, spacing and trailing punctuation are ignored);"
            + " update or delete that one",
        null);
  }

  private static ToolRule readRule(ResultSet rs) throws SQLException {
    String id = rs.getString(1);
    String tool = rs.getString(2);
    String where = "rule " + id + " of tool " + tool;
    return new ToolRule(
        id,
        tool,
        rs.getString(3),
        storedEnum(ToolRule.Priority.class, rs.getString(4), where),
        storedEnum(ToolRule.Source.class, rs.getString(5), where),
        List.of(ControlJson.read(rs.getString(6), String[].class, where + " (tags)")),
        ControlSchema.instant(rs.getLong(8)),
        ControlSchema.instant(rs.getLong(9)),
        List.of(ControlJson.read(rs.getString(7), String[].class, where + " (objects)")));
  }

  private static <E extends Enum<E>> E storedEnum(Class<E> type, String name, String where) {
    try {
      return Enum.valueOf(type, name);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "the control store holds an unknown "
              + type.getSimpleName()
              + " at "
              + where
              + ": "
              + name,
          e);
    }
  }

  /** {@code ORDER BY} the rank of each priority in {@link ToolRule.Priority}, then newest. */
  private static String ruleOrder() {
    StringBuilder sql = new StringBuilder(" ORDER BY CASE priority");
    for (ToolRule.Priority p : ToolRule.Priority.values()) {
      sql.append(" WHEN '").append(p.name()).append("' THEN ").append(p.ordinal());
    }
    return sql.append(" ELSE ")
        .append(ToolRule.Priority.values().length)
        .append(" END, updated_at DESC, id, tool_name")
        .toString();
  }

  /** What one run's calls add to one tool's stats. */
  private static final class CallTally {
    long calls;
    long failures;
    final Map<String, Long> byCategory = new TreeMap<>();
    String lastError = "";

    void add(ToolCall call) {
      calls++;
      if (!call.ok()) {
        failures++;
        String category = call.errorCategory().isEmpty() ? UNKNOWN_CATEGORY : call.errorCategory();
        byCategory.merge(category, 1L, Long::sum);
        lastError = ToolRuleText.cut(call.errorMessage(), ControlSchema.MAX_ERROR_MESSAGE);
      }
    }
  }

  /**
   * Adds {@code tally} and {@code denials} to the stats of {@code tool}, creating its row if
   * needed; a duplicate key (another writer created it first) is left to the caller's retry. The
   * last failure moves only forward in time.
   */
  private static void addToStats(
      Connection c, String workspaceId, String tool, CallTally tally, long denials, long at)
      throws SQLException {
    boolean failed = tally.failures > 0;
    String newer = "last_failure_at IS NULL OR last_failure_at <= ?";
    try (PreparedStatement st =
        c.prepareStatement(
            "UPDATE "
                + ControlSchema.TOOL_STATS
                + " SET calls = calls + ?, failures = failures + ?, denials = denials + ?"
                + (failed
                    ? ", last_error = CASE WHEN "
                        + newer
                        + " THEN ? ELSE last_error END, last_failure_at = CASE WHEN "
                        + newer
                        + " THEN ? ELSE last_failure_at END"
                    : "")
                + " WHERE workspace_id = ? AND tool_name = ?")) {
      int i = 1;
      st.setLong(i++, tally.calls);
      st.setLong(i++, tally.failures);
      st.setLong(i++, denials);
      if (failed) {
        st.setLong(i++, at);
        st.setString(i++, tally.lastError);
        st.setLong(i++, at);
        st.setLong(i++, at);
      }
      st.setString(i++, workspaceId);
      st.setString(i, tool);
      if (st.executeUpdate() > 0) {
        return;
      }
    }
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO "
                + ControlSchema.TOOL_STATS
                + " (workspace_id, tool_name, calls, failures, denials, last_failure_at,"
                + " last_error) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
      st.setString(1, workspaceId);
      st.setString(2, tool);
      st.setLong(3, tally.calls);
      st.setLong(4, tally.failures);
      st.setLong(5, denials);
      if (failed) {
        st.setLong(6, at);
      } else {
        st.setNull(6, Types.BIGINT);
      }
      st.setString(7, failed ? tally.lastError : "");
      st.executeUpdate();
    }
  }

  /** Adds {@code n} failures of {@code category} to {@code tool}; see {@link #addToStats}. */
  private static void addFailures(
      Connection c, String workspaceId, String tool, String category, long n) throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "UPDATE "
                + ControlSchema.TOOL_FAILURES
                + " SET failures = failures + ? WHERE workspace_id = ? AND tool_name = ?"
                + " AND category = ?")) {
      st.setLong(1, n);
      st.setString(2, workspaceId);
      st.setString(3, tool);
      st.setString(4, category);
      if (st.executeUpdate() > 0) {
        return;
      }
    }
    try (PreparedStatement st =
        c.prepareStatement(
            "INSERT INTO "
                + ControlSchema.TOOL_FAILURES
                + " (workspace_id, tool_name, category, failures) VALUES (?, ?, ?, ?)")) {
      st.setString(1, workspaceId);
      st.setString(2, tool);
      st.setString(3, category);
      st.setLong(4, n);
      st.executeUpdate();
    }
  }

  /**
   * {@link #inTransaction}, run again from the start when it fails on a duplicate key (a concurrent
   * writer created a row it meant to create), at most {@value #SAVE_ATTEMPTS} times.
   */
  private <T> T inTransactionRetried(Connection c, String what, Transaction<T> work)
      throws SQLException {
    for (int attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
      try {
        return inTransaction(c, work);
      } catch (SQLException e) {
        if (!dialect.isDuplicateKey(e)) {
          throw e;
        }
      }
    }
    throw MemoryException.aborted(what + " lost " + SAVE_ATTEMPTS + " races; retry");
  }

  /** Work done in one transaction. */
  @FunctionalInterface
  private interface Transaction<T> {
    T run() throws SQLException;
  }

  /** Runs {@code work} in a transaction on {@code c}: committed if it returns, else rolled back. */
  private static <T> T inTransaction(Connection c, Transaction<T> work) throws SQLException {
    c.setAutoCommit(false);
    try {
      T result = work.run();
      c.commit();
      return result;
    } catch (SQLException | RuntimeException e) {
      try {
        c.rollback();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  /** {@link #run}, holding the audit lock, so sequences are committed in order. */
  private <T> T appendToAudit(String operation, ControlConnections.Work<T> work) {
    auditLock.lock();
    try {
      return run(operation, work);
    } finally {
      auditLock.unlock();
    }
  }

  private <T> T run(String operation, ControlConnections.Work<T> work) {
    try {
      return connections.call(work);
    } catch (SQLException e) {
      if (connections.isClosed()) {
        throw MemoryException.failedPrecondition("the control store is closed");
      }
      LOG.log(Level.WARNING, () -> "control store: cannot " + operation + " at " + url, e);
      throw MemoryException.unavailable(
          "control store: cannot "
              + operation
              + " (SQLSTATE "
              + e.getSQLState()
              + ", error "
              + e.getErrorCode()
              + ")",
          e);
    }
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }

  private static void closeQuietly(ControlConnections connections) {
    if (connections != null) {
      connections.close();
    }
  }
}
