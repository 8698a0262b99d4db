package dev.memsidecar.core.learning;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.ToolCall;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.WriteDecision;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The record of one run, written by EndRun in the transaction that keeps its result: what the run
 * did (tools, skills, tokens, write decisions), when, and for which task. A run that writes nothing
 * (read-only, or LangMem.write off) leaves no receipt, as it leaves no session messages.
 *
 * @param runId the run
 * @param scope the scope EndRun was called with
 * @param sessionId the session the run was appended to (the scope's, else {@code default})
 * @param taskId the task it named ({@code metadata.task_id}), or empty
 * @param tools per tool, in the order of their first call
 * @param skills the skill versions it named ({@code metadata.skills})
 * @param usage the LLM tokens it reported, or null when it reported none
 * @param startTime when its BeginRun snapshot was made, else {@code endTime}
 * @param endTime when EndRun decided
 * @param writeDecisions its write decisions by outcome
 * @param snapshotId the BeginRun snapshot it saw, or empty
 * @param capturedRules how many tool rules it captured
 */
public record RunReceipt(
    String runId,
    Scope scope,
    String sessionId,
    String taskId,
    List<ToolUse> tools,
    List<SkillVersion> skills,
    Usage usage,
    Instant startTime,
    Instant endTime,
    WriteCounts writeDecisions,
    String snapshotId,
    int capturedRules) {

  public RunReceipt {
    requireNonNull(runId, "runId is null");
    requireNonNull(scope, "scope is null");
    requireNonNull(sessionId, "sessionId is null");
    requireNonNull(taskId, "taskId is null");
    tools = List.copyOf(tools);
    skills = List.copyOf(skills);
    requireNonNull(startTime, "startTime is null");
    requireNonNull(endTime, "endTime is null");
    requireNonNull(writeDecisions, "writeDecisions is null");
    requireNonNull(snapshotId, "snapshotId is null");
  }

  /**
   * What a run did with one tool.
   *
   * @param failuresByCategory failed calls per error category ({@code unknown} when a call gave
   *     none), sorted by category
   */
  public record ToolUse(
      String toolName, int calls, int okCalls, Map<String, Integer> failuresByCategory) {
    /** The category of a failed call that names none (as the tool's stats count it). */
    public static final String UNKNOWN_CATEGORY = "unknown";

    public ToolUse {
      requireNonNull(toolName, "toolName is null");
      failuresByCategory = Map.copyOf(failuresByCategory);
    }

    public int failedCalls() {
      return calls - okCalls;
    }

    /** The tools of {@code calls}, in the order of their first call. */
    public static List<ToolUse> of(List<ToolCall> calls) {
      Map<String, int[]> counts = new LinkedHashMap<>();
      Map<String, Map<String, Integer>> failures = new LinkedHashMap<>();
      for (ToolCall call : calls) {
        int[] c = counts.computeIfAbsent(call.toolName(), t -> new int[2]);
        c[0]++;
        Map<String, Integer> byCategory =
            failures.computeIfAbsent(call.toolName(), t -> new TreeMap<>());
        if (call.ok()) {
          c[1]++;
        } else {
          String category =
              call.errorCategory().isEmpty() ? UNKNOWN_CATEGORY : call.errorCategory();
          byCategory.merge(category, 1, Integer::sum);
        }
      }
      List<ToolUse> out = new ArrayList<>(counts.size());
      counts.forEach((tool, c) -> out.add(new ToolUse(tool, c[0], c[1], failures.get(tool))));
      return List.copyOf(out);
    }
  }

  /** The LLM tokens of a run, as the client reported them. */
  public record Usage(long inputTokens, long outputTokens) {}

  /** How many of a run's write decisions had each outcome. */
  public record WriteCounts(int stored, int merged, int rejected) {

    /** The counts of {@code decisions}. */
    public static WriteCounts of(List<WriteDecision> decisions) {
      int stored = 0;
      int merged = 0;
      int rejected = 0;
      for (WriteDecision d : decisions) {
        switch (d.outcome()) {
          case STORED -> stored++;
          case MERGED -> merged++;
          case REJECTED -> rejected++;
        }
      }
      return new WriteCounts(stored, merged, rejected);
    }
  }
}
