package dev.memsidecar.core;

import dev.memsidecar.api.PendingVectors;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * What the calls clients wait for are doing, so that work done behind them (the vectors made behind
 * writes) runs in the pauses between them instead of beside them. The server registers the threads
 * that run its calls ({@link #addCallThread}) and says when a call ends ({@link #callEnded}); the
 * engine counts the embeddings a caller waits for ({@link #foreground}). Work behind {@linkplain
 * #awaitPause waits} while a call thread runs (a call waiting for something, such as a search
 * waiting for the vectors of the records written before it, does not hold it back), while a
 * caller's embedding runs, and for {@value #QUIET_MILLIS} ms after a call ended (the next one of a
 * burst comes sooner); at most {@value #MAX_WAIT_MILLIS} ms, so under a steady stream of calls it
 * still progresses. An engine used in-process, without a server, registers no thread: its work
 * behind only yields to its embeddings.
 *
 * <p>The records' vectors are made in those pauses only while none has waited {@value
 * #VECTORS_OVERDUE_MILLIS} ms ({@link #vectorsOverdue}, from what the stores report, {@link
 * #watchVectors}): past that they are made at once, beside the calls, until they catch up. Without
 * it, a fresh JVM compiling its hot code on one of the two cores under 100 Remembers/s left too few
 * pauses, and records waited up to 4.3 s for their vectors (issue 21 asks for 2 s p99). Not when
 * more than {@value #VECTORS_CATCHABLE} records wait, though: the writes then outrun the model (a
 * bulk load, clients writing flat out), and making vectors beside the calls would slow every call
 * without catching up (Search p50 19 -> 26 ms in {@code bench footprint}'s mix).
 *
 * <p>Why: on the 2-core machine, ONNX Runtime making vectors behind the writes slowed every call it
 * ran beside, even with a core to spare (lowering its thread's priority changed nothing). Replaying
 * LoCoMo turn by turn (issue 17's bench, {@code bge-small-en-q}), EndRun p50 went from 11.0-11.2 ms
 * to 8.8-9.1 ms once bulk embedding ran two texts at a time in the pauses (7.8 ms when it also
 * waited while a call waited, which would hold back a search waiting for these very vectors); the
 * vectors still caught up within 16-36 s of a conversation replayed back to back. An agent's calls
 * come in bursts with its own model's work between them: the vectors are made there.
 *
 * <p>Thread-safe.
 */
public final class CallActivity {
  /** How long after a call ended work behind still waits. */
  static final long QUIET_MILLIS = 2;

  /** The longest work behind waits for a pause before it runs anyway. */
  public static final long MAX_WAIT_MILLIS = 100;

  /**
   * How long a record may wait for its vector before vectors stop waiting for pauses: half of issue
   * 21's 2 s, so that the model's work already queued (a batch of the store's worker) still fits in
   * the other half.
   */
  public static final long VECTORS_OVERDUE_MILLIS = 1000;

  /**
   * The most records waiting for vectors that are still made beside the calls once overdue: about 4
   * s of the model's work beside calls on two cores (120-190 vectors a second).
   */
  public static final long VECTORS_CATCHABLE = 500;

  private static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(300);

  private volatile Supplier<PendingVectors> vectors = () -> PendingVectors.NONE;

  private final Set<Thread> callThreads = ConcurrentHashMap.newKeySet();
  private final AtomicInteger foreground = new AtomicInteger();
  private volatile long lastEnd = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(QUIET_MILLIS);

  /** {@code thread} runs calls clients wait for (a server's worker). */
  public void addCallThread(Thread thread) {
    callThreads.add(thread);
  }

  /** A call ended (answered, failed or cancelled). */
  public void callEnded() {
    lastEnd = System.nanoTime();
  }

  /**
   * Where {@link #vectorsOverdue} reads the records waiting for their vectors (the engine's stores,
   * set once they are open).
   */
  public void watchVectors(Supplier<PendingVectors> pending) {
    vectors = pending;
  }

  /**
   * Whether a record has waited {@value #VECTORS_OVERDUE_MILLIS} ms or more for its vector, with at
   * most {@value #VECTORS_CATCHABLE} waiting: then vectors are made without waiting for a pause.
   */
  boolean vectorsOverdue() {
    PendingVectors pending = vectors.get();
    return pending.oldestWait().toMillis() >= VECTORS_OVERDUE_MILLIS
        && pending.records() <= VECTORS_CATCHABLE;
  }

  /** Runs {@code work}, an embedding a caller waits for: work behind does not run beside it. */
  <T> T foreground(Supplier<T> work) {
    foreground.incrementAndGet();
    try {
      return work.get();
    } finally {
      foreground.decrementAndGet();
    }
  }

  /**
   * Waits for a pause between calls (see the class comment), at most {@value #MAX_WAIT_MILLIS} ms.
   * Returns at once on a call thread (a call embedding in bulk itself must not wait for itself) and
   * when interrupted, with the interrupt flag kept.
   */
  public void awaitPause() {
    Thread self = Thread.currentThread();
    if (callThreads.contains(self)) {
      return;
    }
    long quiet = TimeUnit.MILLISECONDS.toNanos(QUIET_MILLIS);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(MAX_WAIT_MILLIS);
    for (long now = System.nanoTime(); now - deadline < 0; now = System.nanoTime()) {
      if (self.isInterrupted()
          || (now - lastEnd >= quiet && foreground.get() == 0 && !aCallRuns())) {
        return;
      }
      LockSupport.parkNanos(POLL_NANOS);
    }
  }

  /** Whether a call thread is running (not waiting, blocked, or gone). */
  private boolean aCallRuns() {
    for (Thread t : callThreads) {
      Thread.State state = t.getState();
      if (state == Thread.State.RUNNABLE) {
        return true;
      }
      if (state == Thread.State.TERMINATED) {
        callThreads.remove(t);
      }
    }
    return false;
  }
}
