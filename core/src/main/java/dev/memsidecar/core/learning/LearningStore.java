package dev.memsidecar.core.learning;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.Scope;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Where run receipts, tasks and skill effects are kept. The control store implements it ({@code
 * core.control}, which this package does not see); receipts are written with their EndRun result
 * ({@code RunStore.saveEndRun}), in one transaction. Every write is durable when its method returns
 * ({@code kill -9} loses nothing acknowledged). Runs are read like the write-decision audit: the
 * runs of a scope's workspace, narrowed to each other id it gives; tasks are keyed by workspace,
 * user and task id ({@link TaskKey}). Thread-safe.
 */
public interface LearningStore {

  /**
   * The receipt of the run {@code runId} the scope sees (its workspace, narrowed to each other id
   * it gives); the most recently ended when the id was used under several scopes.
   */
  Optional<RunReceipt> run(Scope scope, String runId);

  /** One page of receipts, most recently ended first. */
  List<ListedRun> runs(RunQuery query);

  /**
   * A page of receipts.
   *
   * @param scope whose runs: those of its workspace, narrowed to each other id it gives
   * @param taskId only the runs that named this task; empty for all
   * @param limit at most this many
   * @param beforeSequence only runs listed after the one of this sequence (the previous page's
   *     last), or {@link Long#MAX_VALUE} for the first page
   */
  record RunQuery(Scope scope, String taskId, int limit, long beforeSequence) {
    public RunQuery {
      requireNonNull(scope, "scope is null");
      requireNonNull(taskId, "taskId is null");
    }
  }

  /** A receipt and its place in listings (increasing in the order receipts were kept). */
  record ListedRun(long sequence, RunReceipt receipt) {}

  /**
   * The task ids (empty for none) named by the runs with id {@code runId} of one user of a
   * workspace (an empty user id: the workspace's own runs), whatever their agent and session; empty
   * when there is no such run.
   */
  Set<String> tasksOfRun(String workspaceId, String userId, String runId);

  /**
   * The task, with the ids of its newest {@code maxRunIds} runs, if a run named it.
   *
   * @param maxRunIds at least 1
   */
  Optional<Task> task(TaskKey key, int maxRunIds);

  /**
   * Sets the task's state and the run the verdict named, then counts the effects of every skill
   * version its runs used again, in one transaction; nothing changes when the task already has that
   * state and run.
   */
  Verdict recordAcceptance(TaskKey key, TaskState state, String finalRunId, Instant now);

  /** What {@link #recordAcceptance} did. */
  enum Verdict {
    /** No run named the task: nothing was recorded. */
    NO_TASK,
    /** The task already had that state and run. */
    UNCHANGED,
    /** The task took the new state and run; its skills' effects were counted again. */
    CHANGED
  }
}
