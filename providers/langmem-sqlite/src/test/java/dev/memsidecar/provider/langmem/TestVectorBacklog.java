package dev.memsidecar.provider.langmem;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.Namespace;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class TestVectorBacklog {
  private static final Namespace A = Namespace.of("a");
  private static final Namespace B = Namespace.of("b");

  @Test
  void aSearchGivesUpAtOnceWhenMoreRecordsWaitThanItWouldWaitFor() throws Exception {
    VectorBacklog backlog = new VectorBacklog(100);
    for (int i = 0; i < 50; i++) {
      backlog.recover(Fixtures.record(A, "a" + i, "text " + i));
    }
    backlog.recover(Fixtures.record(B, "b0", "other"));
    // Waiting would take the full minute: only giving up at once ends within the bound.
    assertTimeoutPreemptively(
        Duration.ofSeconds(10), () -> assertFalse(backlog.awaitNamespace(A, 60_000, 49)));
    assertTimeoutPreemptively(
        Duration.ofSeconds(10), () -> assertFalse(backlog.awaitNamespace(null, 60_000, 50)));
    // As many as it waits for: it waits, and they land.
    CompletableFuture<Boolean> landed = await(backlog, A, 50);
    for (int i = 0; i < 50; i++) {
      backlog.clear(A, "a" + i);
    }
    assertTrue(landed.get());
  }

  @Test
  void aSearchWaitsForTheRecordsOfItsNamespaceOnly() throws Exception {
    VectorBacklog backlog = new VectorBacklog(100);
    backlog.recover(Fixtures.record(A, "a0", "text"));
    backlog.recover(Fixtures.record(B, "b0", "other"));
    CompletableFuture<Boolean> landed = await(backlog, A, 1);
    backlog.clear(A, "a0");
    assertTrue(landed.get());
    assertFalse(backlog.awaitNamespace(B, 50, 1), "b0 never lands");
  }

  private static CompletableFuture<Boolean> await(VectorBacklog backlog, Namespace ns, int atMost) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return backlog.awaitNamespace(ns, 60_000, atMost);
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
  }
}
