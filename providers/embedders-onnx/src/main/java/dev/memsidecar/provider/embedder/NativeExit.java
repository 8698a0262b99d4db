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
 * #leave}). A shutdown hook waits for the calls in flight to end (at most {@value
 * #EXIT_WAIT_MILLIS} ms) and then closes the gate. A call that would enter after that fails
 * instead, or, on a daemon thread (the workers that make vectors behind writes), waits for the exit
 * without a word: the records whose vectors it was making stay without one, and a store makes them
 * when it opens again. Only a daemon thread waits, because the JVM never waits for one: a shutdown
 * hook that called the model after the gate closed would otherwise hold the exit forever.
 *
 * <p>Thread-safe.
 */
final class NativeExit {
  /** How long the shutdown hook waits for the calls in flight, at most. */
  static final long EXIT_WAIT_MILLIS = 10_000;

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
    }
  }

  /** Leaves the gate after a call into ONNX Runtime ({@link #enter} must have returned). */
  void leave() {
    synchronized (lock) {
      if (--inFlight == 0) {
        lock.notifyAll();
      }
    }
  }

  /**
   * Waits for the calls in flight to end (at most {@link #EXIT_WAIT_MILLIS}) and closes the gate.
   */
  void close() {
    synchronized (lock) {
      long deadline = System.nanoTime() + EXIT_WAIT_MILLIS * 1_000_000;
      while (inFlight > 0) {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          break;
        }
        try {
          lock.wait(left);
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
