package dev.memsidecar.provider.langmem;

import static java.util.Objects.requireNonNull;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Group commit without a thread of its own: writers that arrive while a batch is being committed
 * queue up, and when it is done one of them commits everything queued as the next batch, for all of
 * them. So under concurrent load one transaction (one H2 chunk written to the file) carries several
 * writes.
 *
 * <p>Before it starts a batch, the writer running it waits up to {@code maxWaitMillis} while fewer
 * writes are queued than the previous batch had writers (a {@link #submitAll} of many jobs is one;
 * {@linkplain Job#background() background} work is none): the writers that batch answered are
 * likely to come back with their next write soon (a server's clients, each with one request at a
 * time), and one commit for all of them costs much less than one each. A batch cut short by the
 * wait carries what came, and the next waits for no more than that; so a lone writer never waits,
 * and the wait adapts to how many writers there are.
 *
 * <p>Batches run one at a time, in the order their jobs were {@linkplain #submit submitted}, each
 * holding at most {@code maxBatch} jobs; everything a batch does (the database, then the in-memory
 * indexes) is therefore in one total order. {@link #submit} returns once the batch holding its job
 * has run. The {@link Action} records each job's outcome in the job; should it throw, every job of
 * its batch that has no outcome yet fails with what it threw. Thread-safe.
 *
 * @param <J> the jobs
 */
final class GroupCommitter<J extends GroupCommitter.Job> {

  /** One write, and its outcome once its batch has run. */
  abstract static class Job {
    // Guarded by the committer's lock until done; read by the submitter afterwards.
    boolean done;
    // The first job of its submit: batches count writers by these.
    boolean leads;
    private RuntimeException failure;

    /**
     * Whether this is background work no client waits for: its writer is not counted among those
     * the next batch waits for.
     */
    boolean background() {
      return false;
    }

    /** Records that this job failed; its submitter gets {@code e}. */
    final void fail(RuntimeException e) {
      failure = requireNonNull(e, "e is null");
    }

    /** The failure {@link #fail} recorded, or null. */
    final RuntimeException failure() {
      return failure;
    }
  }

  /** Commits a batch of jobs, recording the failure of each job that failed. */
  @FunctionalInterface
  interface Action<J> {
    void run(List<J> batch);
  }

  private final Action<J> action;
  private final int maxBatch;
  private final long maxWaitNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition batchDone = lock.newCondition();
  private final Condition queued = lock.newCondition();
  private final ArrayDeque<J> queue = new ArrayDeque<>();
  // Guarded by lock.
  private boolean running;
  private int lastBatch;
  private long batches;
  private long jobs;

  /**
   * @param maxBatch the most jobs one batch carries
   * @param maxWaitMillis how long a batch waits for as many jobs as the previous one carried; 0 for
   *     never
   */
  GroupCommitter(Action<J> action, int maxBatch, long maxWaitMillis) {
    this.action = requireNonNull(action, "action is null");
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch must be at least 1: " + maxBatch);
    }
    if (maxWaitMillis < 0) {
      throw new IllegalArgumentException("maxWaitMillis must not be negative: " + maxWaitMillis);
    }
    this.maxBatch = maxBatch;
    this.maxWaitNanos = TimeUnit.MILLISECONDS.toNanos(maxWaitMillis);
  }

  /**
   * Queues {@code job} and returns once a batch holding it has run; the caller then reads the job's
   * outcome. The calling thread may run that batch (and those before it) itself. Not interruptible:
   * a queued write is committed whatever happens to its caller, so the answer it gets is true; the
   * interrupt status is kept.
   */
  void submit(J job) {
    submitAll(List.of(requireNonNull(job, "job is null")));
  }

  /**
   * Queues {@code jobs} together, in order, and returns once the batches holding them have run, as
   * {@link #submit} does for one.
   */
  void submitAll(List<J> jobs) {
    if (jobs.isEmpty()) {
      return;
    }
    // Batches run in queue order: once the last job is done, all are.
    J last = jobs.get(jobs.size() - 1);
    lock.lock();
    try {
      jobs.get(0).leads = true;
      queue.addAll(jobs);
      queued.signal();
      while (!last.done) {
        if (running) {
          batchDone.awaitUninterruptibly();
          continue;
        }
        running = true;
        long left = maxWaitNanos;
        while (left > 0 && queue.size() < Math.min(lastBatch, maxBatch)) {
          try {
            left = queued.awaitNanos(left);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            left = 0;
          }
        }
        List<J> batch = new ArrayList<>(Math.min(queue.size(), maxBatch));
        while (batch.size() < maxBatch && !queue.isEmpty()) {
          batch.add(queue.poll());
        }
        lastBatch = (int) batch.stream().filter(j -> j.leads && !j.background()).count();
        lock.unlock();
        try {
          runAction(batch);
        } finally {
          lock.lock();
          for (J j : batch) {
            j.done = true;
          }
          batches++;
          this.jobs += batch.size();
          running = false;
          batchDone.signalAll();
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** How many batches have run; for tests and benchmarks. */
  long batches() {
    lock.lock();
    try {
      return batches;
    } finally {
      lock.unlock();
    }
  }

  /** How many jobs wait for a batch to take them; for tests. */
  int queued() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  /** How many jobs the batches so far carried; for tests and benchmarks. */
  long jobs() {
    lock.lock();
    try {
      return jobs;
    } finally {
      lock.unlock();
    }
  }

  private void runAction(List<J> batch) {
    try {
      action.run(batch);
    } catch (RuntimeException | Error e) {
      RuntimeException failure =
          e instanceof RuntimeException r ? r : new IllegalStateException("a batch failed", e);
      for (J j : batch) {
        if (j.failure() == null) {
          j.fail(failure);
        }
      }
      if (e instanceof Error error) {
        throw error;
      }
    }
  }
}
