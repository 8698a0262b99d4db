package dev.memsidecar.toolkit;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs a pass over slots {@code [0, size)} in two halves when a second core may be free: when a
 * thread of {@link ForkJoinPool#commonPool()} is idle, the second half is offered to the pool, the
 * caller runs the first, then runs the second itself unless a pool thread has already taken it. So
 * a search alone on a machine of two cores takes both, and searches that already keep every core
 * busy run whole, or lose only the hand-off (the caller takes its second half back when no pool
 * thread got to it first).
 */
final class Halves {
  /** Below this many slots a pass runs whole on the caller's thread. */
  static final int SPLIT_FROM = 8_192;

  private static final boolean MANY_CORES = Runtime.getRuntime().availableProcessors() > 1;

  /** One half of a pass: {@code part} 0 or 1, over slots {@code [from, to)}. */
  @FunctionalInterface
  interface Part {
    void run(int part, int from, int to);
  }

  private Halves() {}

  /** Runs {@code work} over {@code [0, size)}: whole, or as part 0 and part 1 (see the class). */
  static void run(int size, Part work) {
    ForkJoinPool pool = ForkJoinPool.commonPool();
    if (size < SPLIT_FROM || !MANY_CORES || pool.getActiveThreadCount() >= pool.getParallelism()) {
      work.run(0, 0, size);
      return;
    }
    int half = size >>> 1;
    Second second = new Second(work, half, size);
    pool.execute(second);
    try {
      work.run(0, 0, half);
    } catch (Throwable t) {
      // The pass failed: its arrays go back to the caller, so no pool thread may still read or
      // write them once this returns.
      second.cancel();
      throw t;
    }
    second.finish();
  }

  private static final class Second implements Runnable {
    private final Part work;
    private final int from;
    private final int to;
    private final AtomicBoolean taken = new AtomicBoolean();
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile Throwable failure;

    Second(Part work, int from, int to) {
      this.work = work;
      this.from = from;
      this.to = to;
    }

    @Override
    public void run() {
      if (taken.compareAndSet(false, true)) {
        try {
          work.run(1, from, to);
        } catch (Throwable t) {
          failure = t;
        } finally {
          done.countDown();
        }
      }
    }

    /** Runs this half here if no pool thread took it, else waits for it; rethrows its failure. */
    void finish() {
      if (taken.compareAndSet(false, true)) {
        work.run(1, from, to);
        return;
      }
      awaitDone();
      if (failure instanceof RuntimeException e) {
        throw e;
      }
      if (failure instanceof Error e) {
        throw e;
      }
    }

    /** Keeps this half from running, or waits for a pool thread that took it to end. */
    void cancel() {
      if (!taken.compareAndSet(false, true)) {
        awaitDone();
      }
    }

    private void awaitDone() {
      boolean interrupted = false;
      while (true) {
        try {
          done.await();
          break;
        } catch (InterruptedException e) {
          interrupted = true; // the pool thread is reading this search's arrays: wait it out
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
