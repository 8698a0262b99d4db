package dev.memsidecar.provider.lucene;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.api.MemoryException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Group sync: writers that need their change durable and visible share one run of an {@link Action}
 * (for the store: write the log's queued entries, fsync, refresh the searchers) instead of paying
 * for one each.
 *
 * <p>A writer calls {@link #join()}, makes its change (getting a sequence number), then {@link
 * #await(long)}. One thread loops: it waits until some writer awaits a sequence number not yet
 * durable; then, for up to {@code maxWait}, it waits while writers have joined but not yet reached
 * {@code await}, or while fewer writers await than the previous run carried (so the clients the
 * last run woke can ride this one; a lone writer never waits); then it runs the {@link Action} and
 * wakes every writer whose sequence number the run covered. Writers arriving while a run is under
 * way are batched into the next one, so under load each run carries every write made during the
 * previous one.
 *
 * <p>If the action fails, every writer waiting for a sequence number up to the highest requested
 * when it started gets UNAVAILABLE (its change may still become durable with a later run); a failed
 * run is not retried until another writer asks. After {@link #close()} has run the final action,
 * {@code await} fails with FAILED_PRECONDITION. Thread-safe.
 */
final class GroupCommit implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(GroupCommit.class.getName());

  /** Makes every operation so far durable and visible. */
  interface Action {
    /**
     * Makes the operations so far durable and visible.
     *
     * @return the sequence number of the last operation the run covered: every operation with a
     *     number up to it is durable and visible to searchers acquired afterwards
     */
    long run() throws IOException;
  }

  private final String name;
  private final Action action;
  private final long maxWaitNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition work = lock.newCondition();
  private final Condition done = lock.newCondition();
  private final Thread thread;
  private final AtomicLong runs = new AtomicLong();

  // Guarded by lock.
  private int joined;
  private int waiting;
  private int lastBatch;
  private long requested = -1;
  private long durable = -1;
  private long failedThrough = -1;
  private Exception failure;
  private boolean closing;
  private boolean stopped;

  /**
   * Starts the thread.
   *
   * @param name for the thread and messages, e.g. {@code lucene-hnsw sync (workspace)}
   * @param maxWaitMillis how long a run waits for writers that joined but have not yet asked
   */
  GroupCommit(String name, Action action, long maxWaitMillis) {
    this.name = requireNonNull(name, "name is null");
    this.action = requireNonNull(action, "action is null");
    if (maxWaitMillis < 0) {
      throw new IllegalArgumentException("maxWaitMillis must not be negative: " + maxWaitMillis);
    }
    this.maxWaitNanos = TimeUnit.MILLISECONDS.toNanos(maxWaitMillis);
    this.thread = Thread.ofPlatform().name(name).daemon(true).unstarted(this::loop);
    thread.start();
  }

  /** Announces a write about to get its sequence number; follow with {@link #await} or leave. */
  void join() {
    lock.lock();
    try {
      joined++;
    } finally {
      lock.unlock();
    }
  }

  /** Withdraws a {@link #join()} whose write failed before it got a sequence number. */
  void leave() {
    lock.lock();
    try {
      joined--;
      work.signal();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Withdraws the {@link #join()} and blocks until operation {@code seqNo} is durable and visible.
   *
   * @throws MemoryException UNAVAILABLE if the run failed, FAILED_PRECONDITION if closed before it
   *     ran
   */
  void await(long seqNo) {
    lock.lock();
    try {
      joined--;
      if (seqNo > requested) {
        requested = seqNo;
      }
      waiting++;
      work.signal();
      boolean interrupted = false;
      try {
        while (durable < seqNo) {
          if (failure != null && seqNo <= failedThrough) {
            throw MemoryException.unavailable(name + ": failed: " + failure.getMessage(), failure);
          }
          if (stopped) {
            throw MemoryException.failedPrecondition(
                name + ": closed before the write was durable");
          }
          try {
            done.await();
          } catch (InterruptedException e) {
            // The write is already in the index: keep waiting so the caller's answer is true.
            interrupted = true;
          }
        }
      } finally {
        waiting--;
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** How many times the action has run successfully; for tests and benchmarks. */
  long runs() {
    return runs.get();
  }

  /** Runs the action a last time for anything requested, then stops the thread. Idempotent. */
  @Override
  public void close() {
    lock.lock();
    try {
      closing = true;
      work.signalAll();
    } finally {
      lock.unlock();
    }
    boolean interrupted = false;
    while (thread.isAlive()) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private void loop() {
    while (true) {
      long target;
      lock.lock();
      try {
        while (requested <= handled() && !closing) {
          work.awaitUninterruptibly();
        }
        if (requested <= handled()) { // closing with nothing left to do
          stopped = true;
          done.signalAll();
          return;
        }
        long left = maxWaitNanos;
        while (left > 0 && !closing && (joined > 0 || waiting < lastBatch)) {
          try {
            left = work.awaitNanos(left);
          } catch (InterruptedException e) {
            left = 0;
          }
        }
        target = requested;
        lastBatch = waiting;
      } finally {
        lock.unlock();
      }
      try {
        long committed = action.run();
        runs.incrementAndGet();
        lock.lock();
        try {
          // Every operation that had its number when the run started is covered.
          durable = Math.max(durable, Math.max(committed, target));
          done.signalAll();
        } finally {
          lock.unlock();
        }
      } catch (IOException | RuntimeException e) {
        LOG.log(Level.WARNING, () -> name + ": failed", e);
        lock.lock();
        try {
          failure = e;
          failedThrough = Math.max(failedThrough, target);
          done.signalAll();
        } finally {
          lock.unlock();
        }
      }
    }
  }

  /** The highest sequence number a run has answered for, successfully or not. */
  private long handled() {
    return Math.max(durable, failedThrough);
  }
}
