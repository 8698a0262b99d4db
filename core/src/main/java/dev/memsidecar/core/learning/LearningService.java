package dev.memsidecar.core.learning;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.core.Limits;
import dev.memsidecar.core.NamespaceResolver;
import dev.memsidecar.core.PageTokens;
import dev.memsidecar.core.RequestOptions;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.events.EventBus;
import dev.memsidecar.core.events.RuntimeEvent;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Runs and acceptance (the engine blueprint's "runs"): the receipts EndRun writes ({@link
 * RunReceipt}), read back by run or page by page; the user's verdict on a task ({@link
 * Acceptance}), which sets its state and final accepted run; and per skill version, how the tasks
 * whose runs used it ended ({@link Task.SkillEffect}), counted again on every verdict. Runs are
 * read like the write-decision audit (a scope sees its workspace's runs, narrowed to each other id
 * it gives); a task belongs to one user of one workspace ({@link TaskKey}) and holds that user's
 * runs that named it, of any agent and session. Verdicts answer to the request alone (a read-only
 * request is PERMISSION_DENIED), not to the memory flags, as session appends do. Thread-safe.
 */
public final class LearningService {
  /** A task lists the ids of at most this many runs, its newest; ListRuns pages through all. */
  public static final int MAX_TASK_RUN_IDS = 1000;

  private static final System.Logger LOG = System.getLogger(LearningService.class.getName());

  private final LearningStore store;
  private final EventBus events;
  private final Clock clock;
  private final AcceptanceListener listener;

  /**
   * Told of every task that a verdict has just made accepted, once the verdict is durable: skill
   * learning starts there (the engine blueprint: "learning is entered by an accepted task, not by a
   * single run"). It runs in the call that recorded the verdict; what it throws is logged and never
   * fails that call, whose verdict stands.
   */
  @FunctionalInterface
  public interface AcceptanceListener {
    void accepted(TaskKey task);
  }

  public LearningService(LearningStore store, EventBus events, Clock clock) {
    this(store, events, clock, task -> {});
  }

  public LearningService(
      LearningStore store, EventBus events, Clock clock, AcceptanceListener listener) {
    this.store = requireNonNull(store, "store is null");
    this.events = requireNonNull(events, "events is null");
    this.clock = requireNonNull(clock, "clock is null");
    this.listener = requireNonNull(listener, "listener is null");
  }

  /** The receipt of a run the scope sees; NOT_FOUND when there is none. */
  public RunReceipt run(Scope scope, String runId) {
    NamespaceResolver.requireIds(scope);
    Ids.require("run_id", runId);
    return store
        .run(scope, runId)
        .orElseThrow(
            () -> MemoryException.notFound("no run " + Ids.quote(runId) + " in this scope"));
  }

  /** A page of receipts and the token of the next (empty on the last). */
  public record RunPage(List<RunReceipt> runs, String nextPageToken) {
    public RunPage {
      runs = List.copyOf(runs);
    }
  }

  /**
   * One page of the receipts the scope sees, most recently ended first; only the runs that named
   * {@code taskId} when it is not empty.
   *
   * @param pageSize 0 means the default; capped like every listing
   */
  public RunPage runs(Scope scope, String taskId, int pageSize, String pageToken) {
    NamespaceResolver.requireIds(scope);
    if (!taskId.isEmpty()) {
      Ids.require("task_id", taskId);
    }
    int size = Limits.pageSize(pageSize);
    String requestKey = "runs\n" + scope + "\n" + taskId;
    String cursor = PageTokens.decode(requestKey, pageToken);
    long before;
    try {
      before = cursor == null ? Long.MAX_VALUE : Long.parseLong(cursor);
    } catch (NumberFormatException e) {
      throw MemoryException.invalidArgument("page_token", "page_token is malformed");
    }
    List<LearningStore.ListedRun> found =
        store.runs(new LearningStore.RunQuery(scope, taskId, size + 1, before));
    List<LearningStore.ListedRun> page = found.subList(0, Math.min(size, found.size()));
    String next = found.size() > size ? String.valueOf(page.get(page.size() - 1).sequence()) : null;
    return new RunPage(
        page.stream().map(LearningStore.ListedRun::receipt).toList(),
        PageTokens.encode(requestKey, next));
  }

  /** The task of the scope's user; NOT_FOUND when no run of that user named it. */
  public Task task(Scope scope, String taskId) {
    TaskKey key = key(scope, taskId);
    return store.task(key, MAX_TASK_RUN_IDS).orElseThrow(() -> noTask(key));
  }

  /**
   * Records the user's verdict on a task of the scope's user: its state becomes the verdict's, its
   * final run {@code finalRunId} (required for ACCEPT; when given, a run of the task), and the
   * effects of the skill versions its runs used are counted again. The same verdict again changes
   * nothing; a different one replaces it. Durable when this returns.
   *
   * @param acceptance the verdict, or null when the request gave none (INVALID_ARGUMENT)
   * @return the task as it is now
   */
  public Task recordAcceptance(
      Scope scope,
      String taskId,
      Acceptance acceptance,
      String finalRunId,
      RequestOptions options) {
    TaskKey key = key(scope, taskId);
    if (options.readOnly()) {
      throw MemoryException.permissionDenied(
          "the request is read-only (metadata."
              + RequestOptions.MEMORY_WRITE
              + " = \"false\"); RecordAcceptance writes");
    }
    if (acceptance == null) {
      throw MemoryException.invalidArgument(
          "acceptance", "acceptance is required: ACCEPT, REVISE or ABANDON");
    }
    if (finalRunId.isEmpty()) {
      if (acceptance == Acceptance.ACCEPT) {
        throw MemoryException.invalidArgument(
            "final_run_id", "final_run_id is required for ACCEPT: the run the user accepted");
      }
    } else {
      Ids.require("final_run_id", finalRunId);
    }
    if (store.task(key, 1).isEmpty()) {
      throw noTask(key);
    }
    if (!finalRunId.isEmpty()) {
      requireRunOf(key, finalRunId);
    }
    LearningStore.Verdict verdict =
        store.recordAcceptance(key, acceptance.state(), finalRunId, clock.instant());
    if (verdict == LearningStore.Verdict.NO_TASK) {
      throw noTask(key);
    }
    Task task = store.task(key, MAX_TASK_RUN_IDS).orElseThrow(() -> noTask(key));
    Map<String, String> attributes = new LinkedHashMap<>();
    attributes.put("task_id", taskId);
    attributes.put("acceptance", acceptance.name().toLowerCase(Locale.ROOT));
    attributes.put("state", task.state().name().toLowerCase(Locale.ROOT));
    attributes.put("changed", String.valueOf(verdict == LearningStore.Verdict.CHANGED));
    events.publish(
        new RuntimeEvent("task.acceptance", clock.instant(), finalRunId, "", scope, attributes));
    if (verdict == LearningStore.Verdict.CHANGED && task.state() == TaskState.ACCEPTED) {
      try {
        listener.accepted(key);
      } catch (RuntimeException e) {
        LOG.log(
            System.Logger.Level.WARNING,
            () ->
                "learning from accepted task " + Ids.quote(taskId) + " failed; the verdict stands",
            e);
      }
    }
    return task;
  }

  /** NOT_FOUND or INVALID_ARGUMENT naming final_run_id unless it is a run of the task. */
  private void requireRunOf(TaskKey key, String runId) {
    Set<String> tasks = store.tasksOfRun(key.workspaceId(), key.userId(), runId);
    if (tasks.contains(key.taskId())) {
      return;
    }
    if (tasks.isEmpty()) {
      throw MemoryException.notFound(
          "final_run_id " + Ids.quote(runId) + ": no run with this id in this scope");
    }
    String named = tasks.stream().sorted().findFirst().orElseThrow();
    throw MemoryException.invalidArgument(
        "final_run_id",
        "final_run_id "
            + Ids.quote(runId)
            + " is not a run of task "
            + Ids.quote(key.taskId())
            + (named.isEmpty() ? ": it named no task" : ": it named task " + Ids.quote(named)));
  }

  private static TaskKey key(Scope scope, String taskId) {
    String workspaceId = NamespaceResolver.requireIds(scope);
    return new TaskKey(workspaceId, scope.userId(), Ids.require("task_id", taskId));
  }

  private static MemoryException noTask(TaskKey key) {
    return MemoryException.notFound(
        "no task "
            + Ids.quote(key.taskId())
            + " in this scope (a task exists once an EndRun names it in metadata.task_id)");
  }
}
