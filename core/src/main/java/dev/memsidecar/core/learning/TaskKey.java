package dev.memsidecar.core.learning;

import static java.util.Objects.requireNonNull;

/**
 * A task: it belongs to one user of one workspace, as a session does (an empty user id is the
 * workspace's own tasks), so the same task id under two users is two tasks.
 */
public record TaskKey(String workspaceId, String userId, String taskId) {
  public TaskKey {
    requireNonNull(workspaceId, "workspaceId is null");
    requireNonNull(userId, "userId is null");
    requireNonNull(taskId, "taskId is null");
  }
}
