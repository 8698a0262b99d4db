package dev.memsidecar.core.skills;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;

/**
 * One piece of evidence a skill candidate came from: a procedural memory record, or an accepted
 * task with all its runs and its final accepted run.
 *
 * @param kind what it is
 * @param memoryId MEMORY: the record; else empty
 * @param profile MEMORY: the record's profile; else empty
 * @param userId TASK: whose task (empty: the workspace's own); else empty
 * @param taskId TASK: the task; else empty
 * @param finalRunId TASK: its final accepted run; else empty
 * @param runIds TASK: its runs, oldest first; MEMORY: the runs that taught the record
 * @param sessionIds the sessions those runs were in, as {@code <user>/<session>}
 * @param tools TASK: the tools its runs called, in the order of their first call; else none
 * @param text MEMORY: the record's content; TASK: what its final run was asked and answered
 * @param time MEMORY: when the record was stored; TASK: when it was accepted
 */
public record CandidateEvidence(
    Kind kind,
    String memoryId,
    String profile,
    String userId,
    String taskId,
    String finalRunId,
    List<String> runIds,
    List<String> sessionIds,
    List<String> tools,
    String text,
    Instant time) {

  /** What a piece of evidence is. */
  public enum Kind {
    MEMORY,
    TASK
  }

  public CandidateEvidence {
    requireNonNull(kind, "kind is null");
    requireNonNull(memoryId, "memoryId is null");
    requireNonNull(profile, "profile is null");
    requireNonNull(userId, "userId is null");
    requireNonNull(taskId, "taskId is null");
    requireNonNull(finalRunId, "finalRunId is null");
    runIds = List.copyOf(runIds);
    sessionIds = List.copyOf(sessionIds);
    tools = tools == null ? List.of() : List.copyOf(tools);
    requireNonNull(text, "text is null");
    requireNonNull(time, "time is null");
  }

  /** A procedural memory record as evidence. */
  public static CandidateEvidence memory(
      String profile,
      String memoryId,
      List<String> runIds,
      List<String> sessionIds,
      String text,
      Instant time) {
    return new CandidateEvidence(
        Kind.MEMORY, memoryId, profile, "", "", "", runIds, sessionIds, List.of(), text, time);
  }

  /** An accepted task as evidence. */
  public static CandidateEvidence task(
      String userId,
      String taskId,
      String finalRunId,
      List<String> runIds,
      List<String> sessionIds,
      List<String> tools,
      String text,
      Instant time) {
    return new CandidateEvidence(
        Kind.TASK, "", "", userId, taskId, finalRunId, runIds, sessionIds, tools, text, time);
  }

  /**
   * What this evidence is about, the same across mining passes however its details grow: {@code
   * memory:<profile>/<id>} or {@code task:<user>/<task>}. A candidate holds each subject once; a
   * subject a rejected candidate holds never yields a candidate again.
   */
  public String subject() {
    return kind == Kind.MEMORY
        ? "memory:" + profile + "/" + memoryId
        : "task:" + userId + "/" + taskId;
  }
}
