package dev.memsidecar.core.learning;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Ids;
import dev.memsidecar.core.Limits;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a run says about its task and the skills it used, in EndRun's metadata: {@value #TASK_ID}
 * (an id) and {@value #SKILLS} (a comma-separated list of {@code name} or {@code name@version},
 * spaces around entries ignored, repeats dropped, at most {@value #MAX_SKILLS}). Its receipt keeps
 * both; the task's acceptance counts towards the effects of those skills.
 *
 * @param taskId the task, or empty when the run named none
 * @param skills the skill versions, in the order named, without repeats
 */
public record RunLabels(String taskId, List<SkillVersion> skills) {
  /** EndRun metadata key: the task the run worked on. */
  public static final String TASK_ID = "task_id";

  /** EndRun metadata key: the skills the run used. */
  public static final String SKILLS = "skills";

  /** Skill versions one run may name. */
  public static final int MAX_SKILLS = 32;

  public RunLabels {
    requireNonNull(taskId, "taskId is null");
    skills = List.copyOf(skills);
  }

  /**
   * The labels in request metadata, checked: INVALID_ARGUMENT naming {@code metadata.task_id} or
   * {@code metadata.skills} when one is malformed.
   */
  public static RunLabels of(Map<String, String> metadata) {
    String taskId = metadata.getOrDefault(TASK_ID, "");
    if (!taskId.isEmpty()) {
      Ids.require("metadata." + TASK_ID, taskId);
    }
    String listed = metadata.getOrDefault(SKILLS, "");
    if (listed.isBlank()) {
      return new RunLabels(taskId, List.of());
    }
    String field = "metadata." + SKILLS;
    String[] entries = listed.split(",", -1);
    Limits.checkCount(field, entries.length, MAX_SKILLS);
    Set<SkillVersion> skills = new LinkedHashSet<>();
    for (String entry : entries) {
      skills.add(SkillVersion.parse(field, entry.strip()));
    }
    return new RunLabels(taskId, new ArrayList<>(skills));
  }
}
