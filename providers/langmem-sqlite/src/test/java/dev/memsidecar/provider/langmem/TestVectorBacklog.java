package dev.memsidecar.provider.langmem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.api.PendingVectors;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
      backlog.clear(A, "a" + i, null);
    }
    assertTrue(landed.get());
  }

  @Test
  void theOldestWaitIsTheRecordWaitingLongestAndSurvivesItsNewerVersions() throws Exception {
    VectorBacklog backlog = new VectorBacklog(100);
    assertEquals(PendingVectors.NONE, backlog.pending());
    backlog.reserve(0, "store");
    backlog.add(Fixtures.record(A, "first", "text"));
    Thread.sleep(60);
    backlog.reserve(0, "store");
    backlog.add(Fixtures.record(A, "second", "text"));
    backlog.reserve(0, "store");
    backlog.add(Fixtures.record(A, "first", "newer text")); // still waiting since the first version
    PendingVectors both = backlog.pending();
    assertEquals(2, both.records());
    assertTrue(both.oldestWait().toMillis() >= 60, both.toString());
    backlog.clear(A, "first", null);
    PendingVectors second = backlog.pending();
    assertEquals(1, second.records());
    assertTrue(second.oldestWait().compareTo(both.oldestWait()) < 0, second + " after " + both);
    backlog.clear(A, "second", null);
    assertEquals(0, backlog.pending().records());
    assertEquals(Duration.ZERO, backlog.pending().oldestWait());
  }

  @Test
  void aSearchWaitsForTheRecordsOfItsNamespaceOnly() throws Exception {
    VectorBacklog backlog = new VectorBacklog(100);
    backlog.recover(Fixtures.record(A, "a0", "text"));
    backlog.recover(Fixtures.record(B, "b0", "other"));
    CompletableFuture<Boolean> landed = await(backlog, A, 1);
    backlog.clear(A, "a0", null);
    assertTrue(landed.get());
    assertFalse(backlog.awaitNamespace(B, 50, 1), "b0 never lands");
  }

  @Test
  void aLoadThatReadARecordJustBeforeItsVectorLandedDoesNotMakeItDueAgain() {
    VectorBacklog backlog = new VectorBacklog(100);
    MemoryRecord r = Fixtures.record(A, "r", "text", Fixtures.T0);
    MemoryRecord deleted = Fixtures.record(A, "gone", "text", Fixtures.T0);
    MemoryRecord old = Fixtures.record(A, "old", "text", Fixtures.T0);
    MemoryRecord newer = Fixtures.record(A, "old", "new text", Fixtures.T0.plusSeconds(1));
    backlog.recover(r);
    backlog.loadStarted();
    // The load read r, gone and newer without vectors; then r's vector landed, gone was deleted
    // and old's vector (an older version than the load read) landed, before the load recovered.
    backlog.clear(A, "r", r);
    backlog.clear(A, "gone", null);
    backlog.clear(A, "old", old);
    backlog.recover(r);
    backlog.recover(deleted);
    backlog.recover(newer);
    assertEquals(1, backlog.size());
    assertTrue(backlog.isDue(newer));
    backlog.loadEnded();
    // No load under way: what a recovery finds without a vector is due.
    backlog.recover(r);
    assertEquals(2, backlog.size());
  }

  @Test
  void aVectorNotWrittenClearsItsVersionOnlyAndGivesItsRoomBack() throws Exception {
    VectorBacklog backlog = new VectorBacklog(3);
    MemoryRecord changedElsewhere = Fixtures.record(A, "x", "text", Fixtures.T0);
    MemoryRecord old = Fixtures.record(A, "y", "text", Fixtures.T0);
    MemoryRecord newer = Fixtures.record(A, "y", "new text", Fixtures.T0.plusSeconds(1));
    backlog.reserve(0, "test");
    backlog.add(changedElsewhere);
    backlog.reserve(0, "test");
    backlog.add(old);
    assertEquals(List.of(changedElsewhere, old), backlog.take(2));
    // A later put of y by this store replaces old (and gives old's room back).
    backlog.reserve(0, "test");
    backlog.add(newer);

    // The worker's vectors of x and of old y were not written.
    backlog.clearIfDue(changedElsewhere);
    backlog.clearIfDue(old);
    assertEquals(1, backlog.size());
    assertTrue(backlog.isDue(newer), "the newer version still waits");
    assertEquals(List.of(newer), backlog.take(2));
    // Room for two more: x's and old y's were given back.
    backlog.reserve(0, "test");
    backlog.reserve(0, "test");
    assertThrows(MemoryException.class, () -> backlog.reserve(0, "test"));
  }

  @Test
  void theWorkerKeepsWaitingWhenOnlyRecordsNoLongerDueAreInLine() throws Exception {
    VectorBacklog backlog = new VectorBacklog(100);
    MemoryRecord read = Fixtures.record(A, "r", "text", Fixtures.T0);
    MemoryRecord put = Fixtures.record(A, "r", "text", Fixtures.T0);
    // A load recovered r just before its put added it: r is in line twice.
    backlog.recover(read);
    backlog.add(put);
    List<MemoryRecord> first = backlog.take(1);
    assertTrue(first.size() == 1 && first.get(0) == put, "the version the put added");
    backlog.clear(A, "r", put);
    // Only r's second place in line is left, and r no longer waits: the worker must not take an
    // empty batch (which means closed, and it would stop for good).
    CompletableFuture<List<MemoryRecord>> next =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return backlog.take(32);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    Thread.sleep(200);
    assertFalse(next.isDone(), "take returned " + (next.isDone() ? next.get() : null));
    MemoryRecord later = Fixtures.record(B, "later", "other");
    backlog.add(later);
    assertEquals(List.of(later), next.get(10, TimeUnit.SECONDS));
    backlog.close();
    assertEquals(List.of(), backlog.take(32));
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
