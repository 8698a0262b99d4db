package dev.memsidecar.provider.lucene;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Commits an index in the background: a thread of its own runs the {@link Action} (commit the
 * index, trim the log) once the log holds {@code thresholdBytes} the index has not committed, or
 * once {@code interval} has passed since the last commit and the log holds anything uncommitted. It
 * looks every {@value #POLL_MILLIS} ms at most. A failed commit is logged and tried again an
 * interval later; writes stay durable meanwhile, in the log. Once nothing is left to commit and the
 * log has not grown for {@code idle}, it runs the idle action at every look (the store merges its
 * segments) until the log grows again. Thread-safe.
 */
final class BackgroundCommit implements AutoCloseable {
  /** How often the thread looks at the log's size, at most. */
  static final long POLL_MILLIS = 50;

  private static final System.Logger LOG = System.getLogger(BackgroundCommit.class.getName());

  /** Commits the index and trims the log. */
  interface Action {
    void run() throws IOException;
  }

  private final String name;
  private final Action action;
  private final LongSupplier uncommittedBytes;
  private final long intervalNanos;
  private final long thresholdBytes;
  private final LongSupplier loggedBytes;
  private final long idleNanos;
  private final Action idleAction;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private final Thread thread;

  // Guarded by lock.
  private boolean closing;

  /**
   * Starts the thread.
   *
   * @param name for the thread and messages
   * @param uncommittedBytes how many bytes the log holds that no commit covers yet
   * @param loggedBytes how many bytes the log has taken in all: idle while it does not change
   * @param idleMillis how long the log must stay unchanged before {@code idleAction} runs; 0 for
   *     never
   */
  BackgroundCommit(
      String name,
      Action action,
      LongSupplier uncommittedBytes,
      long intervalMillis,
      long thresholdBytes,
      LongSupplier loggedBytes,
      long idleMillis,
      Action idleAction) {
    this.name = requireNonNull(name, "name is null");
    this.action = requireNonNull(action, "action is null");
    this.uncommittedBytes = requireNonNull(uncommittedBytes, "uncommittedBytes is null");
    if (intervalMillis < 1 || thresholdBytes < 1) {
      throw new IllegalArgumentException("interval and threshold must be positive");
    }
    this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
    this.thresholdBytes = thresholdBytes;
    this.loggedBytes = requireNonNull(loggedBytes, "loggedBytes is null");
    if (idleMillis < 0) {
      throw new IllegalArgumentException("idleMillis must not be negative: " + idleMillis);
    }
    this.idleNanos = TimeUnit.MILLISECONDS.toNanos(idleMillis);
    this.idleAction = requireNonNull(idleAction, "idleAction is null");
    this.thread = Thread.ofPlatform().name(name).daemon(true).unstarted(this::loop);
    thread.start();
  }

  /** Stops the thread, waiting for a commit under way. Idempotent. */
  @Override
  public void close() {
    lock.lock();
    try {
      closing = true;
      wake.signalAll();
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
    long last = System.nanoTime();
    boolean failed = false;
    long logged = loggedBytes.getAsLong();
    long loggedSince = last;
    while (true) {
      boolean commit;
      lock.lock();
      try {
        long poll = TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS);
        while (!closing && !due(last, failed)) {
          long now = System.nanoTime();
          long l = loggedBytes.getAsLong();
          if (l != logged) {
            logged = l;
            loggedSince = now;
          }
          if (idleNanos > 0
              && now - loggedSince >= idleNanos
              && uncommittedBytes.getAsLong() == 0) {
            break;
          }
          long untilDue = intervalNanos - (now - last);
          wake.awaitNanos(Math.max(1, untilDue > 0 ? Math.min(untilDue, poll) : poll));
        }
        if (closing) {
          return;
        }
        commit = due(last, failed);
        if (!commit) {
          wake.awaitNanos(poll); // idle: the idle action runs once a poll
          if (closing) {
            return;
          }
        }
      } catch (InterruptedException e) {
        return;
      } finally {
        lock.unlock();
      }
      if (!commit) {
        try {
          idleAction.run();
        } catch (IOException | RuntimeException e) {
          LOG.log(Level.WARNING, () -> name + ": background work on an idle index failed", e);
          loggedSince = System.nanoTime(); // try again an idle period later
        }
        continue;
      }
      try {
        action.run();
        failed = false;
      } catch (IOException | RuntimeException e) {
        failed = true;
        LOG.log(
            Level.WARNING,
            () -> name + ": background commit failed; writes stay durable in the log; retrying",
            e);
      }
      last = System.nanoTime();
    }
  }

  /** Whether to commit now; after a failure, only once an interval has passed. */
  private boolean due(long last, boolean failed) {
    long pending = uncommittedBytes.getAsLong();
    boolean intervalPassed = System.nanoTime() - last >= intervalNanos;
    return pending > 0 && (intervalPassed || (!failed && pending >= thresholdBytes));
  }
}
