package dev.memsidecar.core.toolrules;

import dev.memsidecar.api.ToolCall;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where tool rules, tool stats and the audit of enforcement (denials) are kept, per workspace. The
 * control store implements it ({@code core.control}, which this package does not see). Every write
 * is durable when its method returns. Thread-safe.
 */
public interface ToolRuleStore {

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
   * A number that changes whenever the workspace's rules change, through any process; empty when no
   * other process can change them (the store's database is this process's alone), so rules kept in
   * memory stay current as long as this process's own writes update them.
   */
  default OptionalLong toolRulesVersion(String workspaceId) {
    return OptionalLong.empty();
  }

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
}
