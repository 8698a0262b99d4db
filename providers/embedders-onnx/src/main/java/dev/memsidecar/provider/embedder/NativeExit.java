package dev.memsidecar.provider.embedder;

/**
 * Keeps ONNX Runtime's native code from running while the JVM exits.
 *
 * <p>When the JVM exits (SIGTERM, {@code System.exit}) it runs the shutdown hooks, then stops at a
 * safepoint and calls the C library's {@code exit}, which destroys ONNX Runtime's static state. A
 * thread still inside a model run or a session's creation then crashes the process: SIGSEGV in
 * {@code libonnxruntime.so}, an {@code hs_err_pid*.log} file in the working directory and exit code
 * 134 instead of 0. The end-to-end tests saw it when a sidecar was stopped while it made vectors
 * behind writes or loaded the model.
 *
 * <p>So every call of this package into ONNX Runtime goes through a gate ({@link #enter}, {@link
 * #leave}). A shutdown hook waits until no call is in flight and none has come for {@value
 * #QUIET_MILLIS} ms (at most {@value #EXIT_WAIT_MILLIS} ms in all), and then closes the gate: the
 * other shutdown hooks run meanwhile, so the calls of a graceful stop (the requests it lets finish,
 * the vectors a store makes before it closes) still get the model. A call that would enter after
 * that fails instead, or, on a daemon thread (the workers that make vectors behind writes), waits
 * for the exit without a word: the records whose vectors it was making stay without one, and a
 * store makes them when it opens again. Only a daemon thread waits, because the JVM never waits for
 * one: a shutdown hook that called the model after the gate closed would otherwise hold the exit
 * forever.
 *
 * <p>Thread-safe.
 */
final class NativeExit {
  /** How long the shutdown hook waits for the calls to end, at most. */
  static final long EXIT_WAIT_MILLIS = 10_000;

  /** How long no call must have come before the shutdown hook closes the gate. */
  static final long QUIET_MILLIS = 250;

  /** The gate of this JVM's calls into ONNX Runtime. */
  static final NativeExit GATE = new NativeExit();

  static {
    try {
      Runtime.getRuntime().addShutdownHook(new Thread(GATE::close, "onnxruntime-exit"));
    } catch (IllegalStateException e) {
      GATE.close(); // the JVM is already exiting
    }
  }

  private final Object lock = new Object();
  private int inFlight;
  private long lastCallNanos = System.nanoTime();
  private boolean closed;

  NativeExit() {}

  /**
   * Enters the gate before a call into ONNX Runtime. Once it is closed, throws on a thread that is
   * not a daemon and never returns on a daemon thread.
   *
   * @throws IllegalStateException when the gate is closed: the JVM is exiting
   */
  void enter() {
    synchronized (lock) {
      if (closed && !Thread.currentThread().isDaemon()) {
        throw new IllegalStateException("the JVM is exiting: ONNX Runtime takes no more calls");
      }
      while (closed) {
        try {
          lock.wait();
        } catch (InterruptedException e) {
          // The JVM is exiting: this thread must not reach the native code, interrupted or not.
        }
      }
      inFlight++;
      lastCallNanos = System.nanoTime();
    }
  }

  /** Leaves the gate after a call into ONNX Runtime ({@link #enter} must have returned). */
  void leave() {
    synchronized (lock) {
      lastCallNanos = System.nanoTime();
      if (--inFlight == 0) {
        lock.notifyAll();
      }
    }
  }

  /**
   * Waits until no call is in flight and none came for {@link #QUIET_MILLIS} (at most {@link
   * #EXIT_WAIT_MILLIS} in all), then closes the gate.
   */
  void close() {
    synchronized (lock) {
      long deadline = System.nanoTime() + EXIT_WAIT_MILLIS * 1_000_000;
      while (true) {
        long now = System.nanoTime();
        long quietLeft = lastCallNanos + QUIET_MILLIS * 1_000_000 - now;
        long left = Math.min(deadline - now, inFlight > 0 ? Long.MAX_VALUE : quietLeft);
        if (left <= 0) {
          break;
        }
        try {
          lock.wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          break;
        }
      }
      closed = true;
    }
  }

  /** How many calls are inside the gate now (tests). */
  int inFlight() {
    synchronized (lock) {
      return inFlight;
    }
  }
}
