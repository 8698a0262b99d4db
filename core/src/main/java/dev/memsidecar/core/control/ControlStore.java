package dev.memsidecar.core.control;

import dev.memsidecar.api.ToolCall;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.WriteDecision;
import dev.memsidecar.core.run.EndRunResult;
import dev.memsidecar.core.run.RunSnapshot;
import dev.memsidecar.core.toolrules.ToolDenial;
import dev.memsidecar.core.toolrules.ToolRule;
import dev.memsidecar.core.toolrules.ToolStats;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What the sidecar itself must remember, apart from the memories in the providers (the control
 * plane): BeginRun snapshots, EndRun results (idempotency), the audit of write decisions, tool
 * rules, tool stats and the audit of enforcement (denials); later sessions. Embedded H2 under the
 * data directory by default, plain JDBC behind a small dialect seam so PostgreSQL can follow. Every
 * write is durable when its method returns ({@code kill -9} loses nothing acknowledged). Runs are
 * keyed by the caller's whole scope and the run id, so two users' runs with one id never meet.
 * Thread-safe.
 */
public interface ControlStore extends AutoCloseable {

  /**
   * The snapshot of ({@code scope}, {@code runId}) if one exists that expires after {@code now}.
   */
  Optional<RunSnapshot> snapshot(Scope scope, String runId, Instant now);

  /**
   * Keeps {@code snapshot} for ({@code scope}, its run id), replacing an expired one. When a live
   * snapshot already exists (a concurrent BeginRun of the same run won), keeps that one and returns
   * it; otherwise returns {@code snapshot}.
   */
  RunSnapshot saveSnapshot(Scope scope, RunSnapshot snapshot, Instant now);

  /** Deletes snapshots that expired before {@code now}; returns how many. */
  int deleteExpiredSnapshots(Instant now);

  /** The result EndRun gave for ({@code scope}, {@code runId}), if it has run. */
  Optional<EndRunResult> endRun(Scope scope, String runId);

  /**
   * Keeps {@code result} and its decisions in the audit, in one transaction. When a result for the
   * run exists already (a concurrent retry won), keeps that one and returns it.
   */
  EndRunResult saveEndRun(Scope scope, EndRunResult result);

  /** Adds decisions made outside a run (Remember) to the audit. */
  void recordDecisions(Scope scope, String runId, List<WriteDecision> decisions, Instant time);

  /** One page of the audit, oldest first. */
  List<DecisionEntry> decisions(DecisionQuery query);

  // ---------------------------------------------------------------- tool rules (per workspace)

  /**
   * Writes {@code rule} for the workspace: an existing rule of the same tool with the same id, or
   * else with the same rule text (case, spacing and trailing punctuation ignored), is updated and
   * keeps its id and create time; otherwise it is inserted, under a new random id when {@code
   * rule.id()} is empty. Returns the rule as stored. Concurrent puts of one rule leave one rule.
   *
   * @throws dev.memsidecar.api.MemoryException INVALID_ARGUMENT when the tool name is empty or the
   *     rule has no words; ALREADY_EXISTS when {@code rule.id()} names a rule and its new text is
   *     the text of another rule of the tool
   */
  ToolRule putToolRule(String workspaceId, ToolRule rule);

  /** Rule {@code id} of {@code toolName} in the workspace, if it exists. */
  Optional<ToolRule> toolRule(String workspaceId, String toolName, String id);

  /**
   * The workspace's rules of {@code toolName} (all tools when empty): critical, high, normal; then
   * the most recently updated first; then by id.
   */
  List<ToolRule> toolRules(String workspaceId, String toolName);

  /** Deletes a rule; returns whether it existed. */
  boolean deleteToolRule(String workspaceId, String toolName, String id);

  /**
   * Counts {@code calls} (and their failures by category) into each tool's stats, in one
   * transaction. A failure without a category counts as {@code unknown}; the last failure (its time
   * and error message, cut to 1,024 characters) moves only forward in time. Calls with an empty
   * tool name are skipped.
   */
  void recordToolCalls(String workspaceId, List<ToolCall> calls, Instant time);

  /**
   * Keeps a denial in the audit of enforcement (its matched object cut to 256 characters) and
   * counts it into the tool's stats, apart from failures, in one transaction.
   */
  void recordDenial(String workspaceId, ToolDenial denial);

  /**
   * The workspace's denials of {@code toolName} (all tools when empty), newest first, at most
   * {@code limit} (at least 1).
   */
  List<ToolDenial> denials(String workspaceId, String toolName, int limit);

  /** What is known of one tool in the workspace ({@link ToolStats#none} when nothing). */
  ToolStats toolStats(String workspaceId, String toolName);

  @Override
  void close();
}
