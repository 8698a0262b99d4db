package dev.memsidecar.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.api.PendingVectors;
import dev.memsidecar.toolkit.HashEmbedder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class TestRecentEmbeddings {
  /** The hash embedder, recording every text it is asked to embed. */
  private static final class Counting implements Embedder {
    final Embedder hash = new HashEmbedder();
    final List<String> embedded = new ArrayList<>();

    @Override
    public String name() {
      return hash.name();
    }

    @Override
    public int dimensions() {
      return hash.dimensions();
    }

    @Override
    public synchronized float[] embed(String text) {
      embedded.add(text);
      return hash.embed(text);
    }
  }

  private final Counting counting = new Counting();

  /** An embedder of the counting one's name and size, embedding through it unless overridden. */
  private abstract class OverCounting implements Embedder {
    @Override
    public String name() {
      return counting.name();
    }

    @Override
    public int dimensions() {
      return counting.dimensions();
    }

    @Override
    public float[] embed(String text) {
      return counting.embed(text);
    }
  }

  private final RecentEmbeddings recent = new RecentEmbeddings(counting, new CallActivity());

  @Test
  void aTextEmbeddedAgainSoonIsEmbeddedOnceAndGivesTheSameVector() {
    float[] first = recent.embed("Alice prefers green tea\n");
    float[] again = recent.embed("Alice prefers green tea\n");
    assertArrayEquals(first, again);
    assertArrayEquals(counting.hash.embed("Alice prefers green tea\n"), again);
    assertEquals(List.of("Alice prefers green tea\n"), counting.embedded);
    assertEquals("hash", recent.name());
    assertEquals(counting.dimensions(), recent.dimensions());
  }

  @Test
  void aCallerChangingItsVectorDoesNotChangeWhatOthersGet() {
    float[] first = recent.embed("deploys on Tuesday");
    float[] expected = first.clone();
    first[0] = 42f;
    float[] again = recent.embed("deploys on Tuesday");
    assertArrayEquals(expected, again);
    again[1] = 42f;
    assertArrayEquals(expected, recent.embed("deploys on Tuesday"));
  }

  @Test
  void onlyTheLatestTextsAreKept() {
    for (int i = 0; i <= RecentEmbeddings.CAPACITY; i++) {
      recent.embed("text " + i);
    }
    recent.embed("text " + RecentEmbeddings.CAPACITY);
    recent.embed("text 0");
    assertEquals(RecentEmbeddings.CAPACITY + 2, counting.embedded.size());
    assertEquals("text 0", counting.embedded.get(counting.embedded.size() - 1));
  }

  @Test
  void longTextsAreNotKept() {
    String longText = "word ".repeat(RecentEmbeddings.MAX_TEXT_CHARS / 5 + 1);
    recent.embed(longText);
    recent.embed(longText);
    assertEquals(2, counting.embedded.size());
  }

  @Test
  void embedAllUsesKeptVectorsAndEmbedsOnlyTheRestWithoutKeepingThem() {
    recent.embed("kept");
    List<float[]> vectors = recent.embedAll(List.of("new one", "kept", "new two"));
    assertEquals(List.of("kept", "new one", "new two"), counting.embedded);
    assertArrayEquals(counting.hash.embed("new one"), vectors.get(0));
    assertArrayEquals(counting.hash.embed("kept"), vectors.get(1));
    assertArrayEquals(counting.hash.embed("new two"), vectors.get(2));
    recent.embed("new one");
    assertEquals("new one", counting.embedded.get(counting.embedded.size() - 1));
  }

  @Test
  void aTextAskedForWhileItIsEmbeddedIsEmbeddedOnce() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Embedder slow =
        new OverCounting() {
          @Override
          public float[] embed(String text) {
            entered.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              throw new IllegalStateException(e);
            }
            return counting.embed(text);
          }
        };
    RecentEmbeddings shared = new RecentEmbeddings(slow, new CallActivity());
    shared.prefetch("what does Alice drink?");
    assertTrue(entered.await(10, TimeUnit.SECONDS), "prefetch did not start the embedding");
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<float[]> a = pool.submit(() -> shared.embed("what does Alice drink?"));
      Future<float[]> b = pool.submit(() -> shared.embed("what does Alice drink?"));
      Thread.sleep(100);
      assertFalse(a.isDone() || b.isDone(), "a caller did not wait for the vector being made");
      release.countDown();
      float[] expected = counting.hash.embed("what does Alice drink?");
      assertArrayEquals(expected, a.get(10, TimeUnit.SECONDS));
      assertArrayEquals(expected, b.get(10, TimeUnit.SECONDS));
    } finally {
      pool.shutdownNow();
    }
    assertEquals(List.of("what does Alice drink?"), counting.embedded);
  }

  @Test
  void aFailedEmbeddingFailsEveryWaiterAndIsNotKept() {
    Embedder failing =
        new Embedder() {
          int calls;

          @Override
          public String name() {
            return "failing";
          }

          @Override
          public int dimensions() {
            return 4;
          }

          @Override
          public synchronized float[] embed(String text) {
            if (calls++ == 0) {
              throw new IllegalStateException("model not loaded");
            }
            return new float[] {1, 0, 0, 0};
          }
        };
    RecentEmbeddings shared = new RecentEmbeddings(failing, new CallActivity());
    assertThrows(IllegalStateException.class, () -> shared.embed("x"));
    assertArrayEquals(new float[] {1, 0, 0, 0}, shared.embed("x"));
  }

  @Test
  void bulkWorkRunsAFewTextsAtATimeAndWaitsForAPauseBetweenCalls() {
    List<Integer> runs = new ArrayList<>();
    Embedder batches =
        new OverCounting() {
          @Override
          public List<float[]> embedAll(List<String> texts) {
            runs.add(texts.size());
            return super.embedAll(texts);
          }
        };
    CallActivity calls = new CallActivity();
    RecentEmbeddings bulk = new RecentEmbeddings(batches, calls);
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 2 * RecentEmbeddings.BULK_CHUNK + 1; i++) {
      texts.add("fact number " + i);
    }
    long start;
    List<float[]> vectors;
    // A call running the whole time: each chunk waits the longest wait.
    try (TestCallActivity.Busy call = TestCallActivity.Busy.start(calls)) {
      start = System.nanoTime();
      vectors = bulk.embedAll(texts);
    }
    long waited = System.nanoTime() - start;
    assertEquals(
        List.of(RecentEmbeddings.BULK_CHUNK, RecentEmbeddings.BULK_CHUNK, 1), runs, "chunks");
    for (int i = 0; i < texts.size(); i++) {
      assertArrayEquals(counting.hash.embed(texts.get(i)), vectors.get(i), texts.get(i));
    }
    assertTrue(
        waited >= TimeUnit.MILLISECONDS.toNanos(3 * CallActivity.MAX_WAIT_MILLIS),
        "waited " + waited + " ns for pauses");
  }

  @Test
  void bulkWorkStopsWaitingForPausesOnceARecordsVectorIsOverdue() {
    CallActivity calls = new CallActivity();
    AtomicReference<PendingVectors> pending = new AtomicReference<>(PendingVectors.NONE);
    calls.watchVectors(pending::get);
    RecentEmbeddings bulk = new RecentEmbeddings(counting, calls);
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 2 * RecentEmbeddings.BULK_CHUNK + 1; i++) {
      texts.add("overdue fact " + i);
    }
    long overdue = TimeUnit.MILLISECONDS.toNanos(CallActivity.VECTORS_OVERDUE_MILLIS);
    try (TestCallActivity.Busy call = TestCallActivity.Busy.start(calls)) {
      // Just under the bound: both chunks of 3 texts wait for a pause that never comes.
      pending.set(new PendingVectors(1, Duration.ofNanos(overdue - 1_000_000)));
      long start = System.nanoTime();
      bulk.embedAll(texts.subList(0, 3));
      assertTrue(
          System.nanoTime() - start
              >= TimeUnit.MILLISECONDS.toNanos(2 * CallActivity.MAX_WAIT_MILLIS),
          "two chunks waited for pauses");
      // Overdue, but more records wait than the model could catch up with: the same.
      pending.set(
          new PendingVectors(CallActivity.VECTORS_CATCHABLE + 1, Duration.ofNanos(overdue)));
      start = System.nanoTime();
      bulk.embedAll(texts.subList(0, 3));
      assertTrue(
          System.nanoTime() - start
              >= TimeUnit.MILLISECONDS.toNanos(2 * CallActivity.MAX_WAIT_MILLIS),
          "two chunks waited for pauses with too many records waiting");
      // At the bound: no chunk waits.
      pending.set(new PendingVectors(CallActivity.VECTORS_CATCHABLE, Duration.ofNanos(overdue)));
      start = System.nanoTime();
      List<float[]> vectors = bulk.embedAll(texts);
      long waited = System.nanoTime() - start;
      assertTrue(
          waited < TimeUnit.MILLISECONDS.toNanos(CallActivity.MAX_WAIT_MILLIS),
          "waited " + waited + " ns with a vector overdue");
      for (int i = 0; i < texts.size(); i++) {
        assertArrayEquals(counting.hash.embed(texts.get(i)), vectors.get(i), texts.get(i));
      }
    }
  }
}
