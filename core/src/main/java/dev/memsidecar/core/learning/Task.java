package dev.memsidecar.core.learning;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.List;

/**
 * A task as its runs and verdicts left it.
 *
 * @param taskId the task
 * @param state where it stands
 * @param finalRunId the run the last verdict named (the final accepted run when {@link
 *     TaskState#ACCEPTED}), or empty
 * @param runIds its runs, oldest first: all of them, or the newest {@link
 *     LearningService#MAX_TASK_RUN_IDS}
 * @param runCount how many runs named it
 * @param skillEffects one per skill version its runs used, by name and version
 * @param createTime the end of its first run
 * @param updateTime the last run or verdict that changed it
 * @param acceptanceTime the last verdict that changed it, or null while it has none
 */
public record Task(
    String taskId,
    TaskState state,
    String finalRunId,
    List<String> runIds,
    long runCount,
    List<SkillEffect> skillEffects,
    Instant createTime,
    Instant updateTime,
    Instant acceptanceTime) {

  public Task {
    requireNonNull(taskId, "taskId is null");
    requireNonNull(state, "state is null");
    requireNonNull(finalRunId, "finalRunId is null");
    runIds = List.copyOf(runIds);
    skillEffects = List.copyOf(skillEffects);
    requireNonNull(createTime, "createTime is null");
    requireNonNull(updateTime, "updateTime is null");
  }

  /**
   * How the tasks of a workspace whose runs used one skill version ended: counted again whenever
   * one of them gets a verdict.
   *
   * @param acceptedTasks tasks now {@link TaskState#ACCEPTED}
   * @param abandonedTasks tasks now {@link TaskState#ABANDONED}
   */
  public record SkillEffect(SkillVersion skill, long acceptedTasks, long abandonedTasks) {
    public SkillEffect {
      requireNonNull(skill, "skill is null");
    }

    /** accepted / (accepted + abandoned); 0 when no task has ended either way. */
    public double successRate() {
      long decided = acceptedTasks + abandonedTasks;
      return decided == 0 ? 0 : (double) acceptedTasks / decided;
    }
  }
}
