package dev.memsidecar.core;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TestCallActivity {
  private static final long MAX_WAIT_NANOS =
      TimeUnit.MILLISECONDS.toNanos(CallActivity.MAX_WAIT_MILLIS);

  /** A call thread of {@code calls} that runs (spins) until closed. */
  static final class Busy implements AutoCloseable {
    private final Thread thread;
    private volatile boolean stop;

    private Busy(CallActivity calls) {
      thread =
          new Thread(
              () -> {
                while (!stop) {
                  Thread.onSpinWait();
                }
              },
              "busy-call");
      calls.addCallThread(thread);
      thread.start();
    }

    static Busy start(CallActivity calls) {
      return new Busy(calls);
    }

    @Override
    public void close() {
      stop = true;
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static long waited(CallActivity calls) {
    long start = System.nanoTime();
    calls.awaitPause();
    return System.nanoTime() - start;
  }

  @Test
  void withNoCallWorkBehindDoesNotWait() {
    assertTrue(waited(new CallActivity()) < MAX_WAIT_NANOS);
  }

  @Test
  void aRunningCallHoldsWorkBehindForTheLongestWaitAndNoLonger() {
    CallActivity calls = new CallActivity();
    try (Busy call = Busy.start(calls)) {
      long waited = waited(calls);
      assertTrue(waited >= MAX_WAIT_NANOS, "waited " + waited + " ns while a call ran");
      assertTrue(waited < 20 * MAX_WAIT_NANOS, "but not for good: " + waited + " ns");
    }
  }

  @Test
  void aCallThatWaitsForSomethingDoesNotHoldWorkBehindBack() throws Exception {
    CallActivity calls = new CallActivity();
    CountDownLatch release = new CountDownLatch(1);
    Thread waiting =
        new Thread(
            () -> {
              try {
                release.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    calls.addCallThread(waiting);
    waiting.start();
    try {
      while (waiting.getState() != Thread.State.WAITING) {
        Thread.onSpinWait();
      }
      // Such as a search waiting for the vectors this work makes.
      assertTrue(waited(calls) < MAX_WAIT_NANOS);
    } finally {
      release.countDown();
      waiting.join();
    }
  }

  @Test
  void aPauseStartsShortlyAfterACallEnds() {
    CallActivity calls = new CallActivity();
    calls.callEnded();
    long waited = waited(calls);
    assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(CallActivity.QUIET_MILLIS), "" + waited);
    assertTrue(waited < MAX_WAIT_NANOS, "" + waited);
  }

  @Test
  void anEmbeddingACallerWaitsForHoldsWorkBehindBack() throws Exception {
    CallActivity calls = new CallActivity();
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CompletableFuture<String> query =
        CompletableFuture.supplyAsync(
            () ->
                calls.foreground(
                    () -> {
                      inside.countDown();
                      try {
                        release.await();
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      return "vector";
                    }));
    assertTrue(inside.await(10, TimeUnit.SECONDS));
    CompletableFuture<Long> behind = CompletableFuture.supplyAsync(() -> waited(calls));
    Thread.sleep(10);
    assertFalse(behind.isDone(), "work behind waits while the embedding runs");
    release.countDown();
    query.get(10, TimeUnit.SECONDS);
    assertTrue(behind.get(10, TimeUnit.SECONDS) < 20 * MAX_WAIT_NANOS);
  }

  @Test
  void onACallThreadAndWhenInterruptedItDoesNotWait() throws Exception {
    CallActivity calls = new CallActivity();
    try (Busy other = Busy.start(calls)) {
      CompletableFuture<Long> onCallThread = new CompletableFuture<>();
      Thread call = new Thread(() -> onCallThread.complete(waited(calls)));
      calls.addCallThread(call);
      call.start();
      assertTrue(onCallThread.get(10, TimeUnit.SECONDS) < MAX_WAIT_NANOS, "a call embedding");
      Thread.currentThread().interrupt();
      try {
        assertTrue(waited(calls) < MAX_WAIT_NANOS, "interrupted");
        assertTrue(Thread.currentThread().isInterrupted());
      } finally {
        Thread.interrupted();
      }
    }
  }
}
