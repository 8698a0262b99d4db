package dev.memsidecar.core.control;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.ToolCall;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.StartupException;
import dev.memsidecar.core.WriteDecision;
import dev.memsidecar.core.learning.RunReceipt;
import dev.memsidecar.core.learning.SkillVersion;
import dev.memsidecar.core.learning.Task;
import dev.memsidecar.core.learning.TaskKey;
import dev.memsidecar.core.learning.TaskState;
import dev.memsidecar.core.maintenance.TargetRun;
import dev.memsidecar.core.run.DecisionEntry;
import dev.memsidecar.core.run.DecisionQuery;
import dev.memsidecar.core.run.EndRunResult;
import dev.memsidecar.core.run.RunSnapshot;
import dev.memsidecar.core.sessions.SessionInfo;
import dev.memsidecar.core.sessions.SessionKey;
import dev.memsidecar.core.sessions.SessionMessage;
import dev.memsidecar.core.sessions.SessionStore;
import dev.memsidecar.core.skills.CandidateStatus;
import dev.memsidecar.core.skills.PublishedSkill;
import dev.memsidecar.core.skills.SkillCandidate;
import dev.memsidecar.core.toolrules.ToolDenial;
import dev.memsidecar.core.toolrules.ToolRule;
import dev.memsidecar.core.toolrules.ToolStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;

/**
 * The {@link ControlStore} in an SQL database, over the JDBC base ({@code dev.memsidecar.jdbc}:
 * HikariCP, Flyway, the dialect seam): an embedded H2 file under the data directory by default
 * ({@link #open(Path)}), or any H2 or PostgreSQL (15) URL with {@link #open(String, Properties)}.
 * The tables are described in {@link ControlSchema} (each dialect has its own migration scripts),
 * the JSON they hold in {@link ControlJson}; each family of tables has its class, which says what
 * it promises: {@link RunTables} (snapshots, EndRun results; first writer wins), {@link
 * DecisionTables} (the audit, in commit order), {@link ToolRuleTables} (one row per rule, and a
 * version per workspace) and {@link ToolStatsTables} (stats, failures, denials), {@link
 * SessionTables} (sessions, messages), {@link SessionTermTables} (their search index), {@link
 * LearningTables} (run receipts, tasks, skill effects), {@link SkillTables} (skill candidates,
 * evidence, approvals, versions), {@link MaintenanceTables} (maintenance runs and lease, pruning of
 * the audit).
 *
 * <p>Every write is committed before its method returns. On H2, with {@code WRITE_DELAY=0}: a
 * {@code kill -9} of the process loses nothing acknowledged (a power cut may lose the last quarter
 * second: the file is forced to disk four times a second while it is written); H2's {@code
 * FILE_LOCK=FS} keeps a second process out of the same database. Open one store per H2 database in
 * a process: H2 lets a second {@code open} of the same file in the same JVM share the database, but
 * the two stores would not share the audit's ordering.
 *
 * <p>On PostgreSQL a commit is durable once the server answers, and several stores (one per sidecar
 * process) may share one database: migrations run once under an advisory lock; a run's snapshot and
 * result are first-writer-wins across them (the loser gets the winner's); the audit's and the
 * session vectors' numbers are committed in order across them (a transaction-level advisory lock),
 * so readers paging by number miss nothing; tool rules carry a version per workspace ({@link
 * #toolRulesVersion}) for caches; maintenance passes take a lease. Text that PostgreSQL cannot hold
 * (NUL, unpaired surrogates) is INVALID_ARGUMENT naming the field in rules and session messages,
 * and replaced by U+FFFD in tool stats and denials (notes, not data); the JSON columns are ASCII
 * and keep everything.
 *
 * <p>Thread-safe: each call borrows one of {@value ControlDatabase#POOL_SIZE} connections. After
 * {@link #close()} every method fails with FAILED_PRECONDITION; a database error is UNAVAILABLE
 * (naming the operation and SQLSTATE).
 */
public final class SqlControlStore implements ControlStore {
  private final ControlDatabase db;
  private final RunTables runs;
  private final DecisionTables audit;
  private final ToolRuleTables rules;
  private final ToolStatsTables stats;
  private final SessionTables sessions;
  private final SessionTermTables postings;
  private final SessionVectorTables vectorTables;
  private final LearningTables learning;
  private final SkillTables skills;
  private final MaintenanceTables maintenance;

  private SqlControlStore(ControlDatabase db) {
    this.db = db;
    this.audit = new DecisionTables(db);
    this.runs = new RunTables(db, audit);
    this.rules = new ToolRuleTables(db);
    this.stats = new ToolStatsTables(db);
    this.sessions = new SessionTables(db);
    this.postings = new SessionTermTables(db);
    this.vectorTables = new SessionVectorTables(db);
    this.learning = new LearningTables(db);
    this.skills = new SkillTables(db);
    this.maintenance = new MaintenanceTables(db);
  }

  /**
   * H2's page split size for the embedded control store, in bytes ({@code PAGE_SIZE}; H2's default
   * is 4096). Each commit rewrites every B-tree page it touched, and a session append touches one
   * page of the term index per distinct term of its messages (about 50 for a turn and its reply),
   * scattered across the index: smaller pages make that commit write a quarter of the bytes. On the
   * LoCoMo turn replay EndRun p50 went from 10.96 to 10.06 ms (the model's vectors behind,
   * 2026-11-27) and BeginRun's word search did not slow; 512 was slower again (12.7 ms). The file
   * holds about 15% more after the replay (115 against 98 MB).
   */
  static final int PAGE_SIZE = 1024;

  /**
   * Statements H2 keeps parsed per connection ({@code QUERY_CACHE_SIZE}; H2's default is 8). A run
   * uses some thirty distinct statements (the snapshot, the session append, the audit, the
   * receipt), so with 8 most were parsed again at every use: in JFR profiles of the LoCoMo turn
   * replay (2026-12-07), preparing statements took 11% of BeginRun's own CPU and 9% of EndRun's,
   * and 0.4% and 5% with 64.
   */
  static final int QUERY_CACHE_SIZE = 64;

  /**
   * Opens (creating if needed) the embedded H2 database {@code <dataDir>/control/control.mv.db},
   * with pages of {@value #PAGE_SIZE} bytes and {@value #QUERY_CACHE_SIZE} statements kept parsed
   * per connection.
   *
   * @throws StartupException if it cannot be opened (another process holds it, a newer release
   *     wrote it, the directory cannot be made); the message names the path
   */
  public static SqlControlStore open(Path dataDir) {
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
    return open(
        "jdbc:h2:file:"
            + dir.resolve("control")
            + ";PAGE_SIZE="
            + PAGE_SIZE
            + ";QUERY_CACHE_SIZE="
            + QUERY_CACHE_SIZE,
        new Properties());
  }

  /**
   * Opens the control store at a JDBC URL ({@code jdbc:h2:} or {@code jdbc:postgresql:}), creating
   * or migrating its tables. H2 options that would break durability ({@code WRITE_DELAY} other than
   * 0, {@code FILE_LOCK=NO}) are refused; the ones the store needs are added. A PostgreSQL URL must
   * not hold the password; it gets a lock timeout of {@link ControlDatabase#LOCK_TIMEOUT} unless it
   * sets {@code options}.
   *
   * @param credentials {@code user} and {@code password}, given to the driver; never shown, so a
   *     password belongs here and not in the URL, which messages show
   * @throws StartupException if the URL is refused or the database cannot be opened
   */
  public static SqlControlStore open(String jdbcUrl, Properties credentials) {
    return new SqlControlStore(ControlDatabase.open(jdbcUrl, credentials));
  }

  @Override
  public <T> T underSharedLock(String name, java.util.function.Supplier<T> work) {
    return db.underSharedLock(name, work);
  }

  @Override
  public Optional<RunSnapshot> snapshot(Scope scope, String runId, Instant now) {
    return runs.snapshot(scope, runId, now);
  }

  @Override
  public RunSnapshot saveSnapshot(Scope scope, RunSnapshot snapshot, Instant now) {
    return runs.saveSnapshot(scope, snapshot, now);
  }

  @Override
  public int deleteExpiredSnapshots(Instant now) {
    return runs.deleteExpiredSnapshots(now);
  }

  @Override
  public void saveRun(TargetRun run) {
    maintenance.saveRun(run);
  }

  @Override
  public List<TargetRun> lastRuns() {
    return maintenance.lastRuns();
  }

  @Override
  public long deleteDecisionsBefore(Instant before) {
    return maintenance.deleteDecisionsBefore(before);
  }

  @Override
  public long trimDecisionsTo(long maxBytes) {
    return maintenance.trimDecisionsTo(maxBytes);
  }

  @Override
  public boolean takeLease(
      String name, String owner, Instant start, Instant until, Instant notStartedSince) {
    return maintenance.takeLease(name, owner, start, until, notStartedSince);
  }

  @Override
  public boolean renewLease(String name, String owner, Instant until) {
    return maintenance.renewLease(name, owner, until);
  }

  @Override
  public void releaseLease(String name, String owner) {
    maintenance.releaseLease(name, owner);
  }

  @Override
  public Optional<Lease> lease(String name) {
    return maintenance.lease(name);
  }

  @Override
  public Optional<EndRunResult> endRun(Scope scope, String runId) {
    return runs.endRun(scope, runId);
  }

  @Override
  public EndRunResult saveEndRun(Scope scope, EndRunResult result, RunReceipt receipt) {
    return runs.saveEndRun(scope, result, receipt);
  }

  @Override
  public void recordDecisions(
      Scope scope, String runId, List<WriteDecision> decisions, Instant time) {
    audit.record(scope, runId, decisions, time);
  }

  @Override
  public List<DecisionEntry> decisions(DecisionQuery query) {
    return audit.page(query);
  }

  @Override
  public List<Scope> scopesSeen(int limit) {
    return audit.scopesSeen(limit);
  }

  @Override
  public ToolRule putToolRule(String workspaceId, ToolRule rule) {
    return rules.put(workspaceId, rule);
  }

  @Override
  public Optional<ToolRule> toolRule(String workspaceId, String toolName, String id) {
    return rules.get(workspaceId, toolName, id);
  }

  @Override
  public List<ToolRule> toolRules(String workspaceId, String toolName) {
    return rules.list(workspaceId, toolName);
  }

  @Override
  public boolean deleteToolRule(String workspaceId, String toolName, String id) {
    return rules.delete(workspaceId, toolName, id);
  }

  @Override
  public void recordToolCalls(String workspaceId, List<ToolCall> calls, Instant time) {
    stats.recordCalls(workspaceId, calls, time);
  }

  @Override
  public void recordDenial(String workspaceId, ToolDenial denial) {
    stats.recordDenial(workspaceId, denial);
  }

  @Override
  public List<ToolDenial> denials(String workspaceId, String toolName, int limit) {
    return stats.denials(workspaceId, toolName, limit);
  }

  /** Empty on H2, which one process alone can open; the workspace's rules version elsewhere. */
  @Override
  public OptionalLong toolRulesVersion(String workspaceId) {
    return db.dialectName().equals("h2")
        ? OptionalLong.empty()
        : OptionalLong.of(rules.version(workspaceId));
  }

  @Override
  public ToolStats toolStats(String workspaceId, String toolName) {
    return stats.stats(workspaceId, toolName);
  }

  @Override
  public List<SessionMessage> append(
      SessionKey key,
      String agentId,
      List<SessionMessage> messages,
      List<SessionStore.IndexTerms> terms,
      Instant now) {
    return sessions.append(key, agentId, messages, terms, now);
  }

  @Override
  public List<SessionMessage> history(
      SessionKey key, long beforeSequence, Instant notBefore, int limit) {
    return sessions.history(key, beforeSequence, notBefore, limit);
  }

  @Override
  public List<SessionMessage> messages(SessionKey key, long afterSequence, int limit) {
    return sessions.messages(key, afterSequence, limit);
  }

  @Override
  public List<Match> bm25(
      SessionKey.Owner owner,
      Set<String> terms,
      Filter filter,
      int limit,
      Collection<Unindexed> unwritten) {
    return postings.bm25(owner, terms, filter, limit, unwritten);
  }

  @Override
  public void index(List<Unindexed> messages) {
    postings.index(messages);
  }

  @Override
  public List<Keyed> unindexed(Instant appendedBefore, int limit) {
    return postings.unindexed(appendedBefore, limit);
  }

  @Override
  public SessionMessage message(SessionKey key, long sequence) {
    return sessions.message(key, sequence);
  }

  @Override
  public void putVectors(String embedder, List<MessageVector> vectors) {
    vectorTables.putVectors(embedder, vectors);
  }

  @Override
  public List<MessageVector> vectors(
      SessionKey.Owner owner, String embedder, long afterVectorSequence, int limit) {
    return vectorTables.vectors(owner, embedder, afterVectorSequence, limit);
  }

  @Override
  public long generation(SessionKey.Owner owner) {
    return vectorTables.generation(owner);
  }

  @Override
  public List<Keyed> unembedded(String embedder, int limit) {
    return vectorTables.unembedded(embedder, limit);
  }

  @Override
  public List<SessionInfo> sessions(SessionKey.Owner owner, SessionCursor after, int limit) {
    return sessions.sessions(owner, after, limit);
  }

  @Override
  public long delete(SessionKey key) {
    return sessions.delete(key);
  }

  @Override
  public long deleteMessagesBefore(Instant cutoff) {
    return sessions.deleteMessagesBefore(cutoff);
  }

  @Override
  public Optional<RunReceipt> run(Scope scope, String runId) {
    return learning.run(scope, runId);
  }

  @Override
  public List<ListedRun> runs(RunQuery query) {
    return learning.runs(query);
  }

  @Override
  public Set<String> tasksOfRun(String workspaceId, String userId, String runId) {
    return learning.tasksOfRun(workspaceId, userId, runId);
  }

  @Override
  public Optional<Task> task(TaskKey key, int maxRunIds) {
    return learning.task(key, maxRunIds);
  }

  @Override
  public Verdict recordAcceptance(TaskKey key, TaskState state, String finalRunId, Instant now) {
    return learning.recordAcceptance(key, state, finalRunId, now);
  }

  @Override
  public List<String> learningWorkspaces(int limit) {
    return skills.learningWorkspaces(limit);
  }

  @Override
  public Map<String, String> sessionsOfRuns(String workspaceId, Collection<String> runIds) {
    return skills.sessionsOfRuns(workspaceId, runIds);
  }

  @Override
  public List<SessionMessage> runMessages(
      SessionKey session, Collection<String> runIds, int limit) {
    return skills.runMessages(session, runIds, limit);
  }

  @Override
  public List<TaskKey> acceptedTasksWithoutCandidate(String workspaceId, int limit) {
    return skills.acceptedTasksWithoutCandidate(workspaceId, limit);
  }

  @Override
  public List<SkillCandidate> candidatesHolding(String workspaceId, Collection<String> subjects) {
    return skills.candidatesHolding(workspaceId, subjects);
  }

  @Override
  public Optional<SkillCandidate> candidate(String workspaceId, String candidateId) {
    return skills.candidate(workspaceId, candidateId);
  }

  @Override
  public List<SkillCandidate> candidates(CandidateQuery query) {
    return skills.candidates(query);
  }

  @Override
  public void insertCandidate(SkillCandidate candidate) {
    skills.insertCandidate(candidate);
  }

  @Override
  public boolean updateCandidate(SkillCandidate candidate, CandidateStatus expected) {
    return skills.updateCandidate(candidate, expected);
  }

  @Override
  public int latestVersion(String workspaceId, String name) {
    return skills.latestVersion(workspaceId, name);
  }

  @Override
  public boolean recordPublish(
      String workspaceId,
      PublishedSkill version,
      SkillCandidate candidate,
      CandidateStatus expected) {
    return skills.recordPublish(workspaceId, version, candidate, expected);
  }

  @Override
  public List<PublishedSkill> skills(
      String workspaceId, String afterName, String onlyName, int limit) {
    return skills.skills(workspaceId, afterName, onlyName, limit);
  }

  @Override
  public List<PublishedSkill> versions(String workspaceId, String name) {
    return skills.versions(workspaceId, name);
  }

  @Override
  public List<Task.SkillEffect> effects(String workspaceId, List<SkillVersion> versions) {
    return skills.effects(workspaceId, versions);
  }

  /** Closes the connections; the database file stays. Idempotent. */
  @Override
  public void close() {
    db.close();
  }

  @Override
  public String toString() {
    return "SqlControlStore[" + db.url() + "]";
  }
}
