package dev.memsidecar.provider.embedder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The gate that keeps ONNX Runtime's native code from running while the JVM exits. */
class TestNativeExit {
  @Test
  void closingWaitsForTheCallInFlightThenRefusesNewOnes() throws Exception {
    NativeExit gate = new NativeExit();
    gate.enter(); // a model run in flight
    CountDownLatch closed = new CountDownLatch(1);
    Thread hook =
        new Thread(
            () -> {
              gate.close();
              closed.countDown();
            });
    hook.start();
    assertFalse(closed.await(300, TimeUnit.MILLISECONDS), "close waits for the run in flight");
    gate.leave();
    assertTrue(closed.await(5, TimeUnit.SECONDS), "close returns once the run ended");
    assertEquals(0, gate.inFlight());

    // A request thread (not a daemon) is refused; a worker (daemon) waits for the exit.
    assertThrows(IllegalStateException.class, gate::enter);
    AtomicBoolean entered = new AtomicBoolean();
    Thread worker =
        new Thread(
            () -> {
              gate.enter();
              entered.set(true);
            });
    worker.setDaemon(true);
    worker.start();
    worker.interrupt();
    worker.join(300);
    assertTrue(worker.isAlive(), "a daemon thread waits at the closed gate, even interrupted");
    assertFalse(entered.get());
    assertEquals(0, gate.inFlight());
  }
}
