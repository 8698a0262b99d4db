package dev.memsidecar.provider.langmem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Concurrent writers share commits; each learns the outcome of its own write. */
class TestGroupCommitter {
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final List<List<String>> batches = Collections.synchronizedList(new ArrayList<>());

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  private static class Named extends GroupCommitter.Job {
    final String name;

    Named(String name) {
      this.name = name;
    }
  }

  private static final class Behind extends Named {
    Behind(String name) {
      super(name);
    }

    @Override
    boolean background() {
      return true;
    }
  }

  private void record(List<Named> batch) {
    batches.add(batch.stream().map(j -> j.name).toList());
  }

  @Test
  void writersArrivingDuringACommitShareTheNextOne() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    GroupCommitter<Named> committer =
        new GroupCommitter<>(
            batch -> {
              record(batch);
              if (batches.size() == 1) {
                await(release);
              }
            },
            16,
            0);
    Future<?> first = submit(committer, "first");
    waitUntil(() -> batches.size(), 1);
    List<Future<?>> others = new ArrayList<>();
    for (String name : List.of("a", "b", "c")) {
      others.add(submit(committer, name));
    }
    waitUntil(committer::queued, 3);
    release.countDown();
    first.get();
    for (Future<?> f : others) {
      f.get();
    }
    assertEquals(2, batches.size());
    assertEquals(List.of("first"), batches.get(0));
    assertEquals(List.of("a", "b", "c"), batches.get(1).stream().sorted().toList());
    assertEquals(2, committer.batches());
    assertEquals(4, committer.jobs());
  }

  @Test
  void manyJobsOfOneSubmitAreOneBatchAndBackgroundWorkMakesNoWriterWait() throws Exception {
    GroupCommitter<Named> committer = new GroupCommitter<>(this::record, 16, 3_600_000);
    committer.submitAll(List.of(new Behind("v1"), new Behind("v2"), new Behind("v3")));
    assertEquals(List.of(List.of("v1", "v2", "v3")), batches);
    // Had the three counted as writers, this lone one would wait an hour for two more.
    submit(committer, "lone").get(10, TimeUnit.SECONDS);
    assertEquals(List.of("lone"), batches.get(1));
  }

  @Test
  void aBatchWaitsForAsManyWritersAsThePreviousOneCarried() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    GroupCommitter<Named> committer =
        new GroupCommitter<>(
            batch -> {
              record(batch);
              if (batches.size() == 1) {
                await(release);
              }
            },
            16,
            3_600_000);
    Future<?> first = submit(committer, "first");
    waitUntil(() -> batches.size(), 1);
    List<Future<?>> pair = List.of(submit(committer, "a"), submit(committer, "b"));
    waitUntil(committer::queued, 2);
    release.countDown();
    first.get();
    for (Future<?> f : pair) {
      f.get();
    }
    assertEquals(List.of("a", "b"), batches.get(1).stream().sorted().toList());

    // The previous batch carried two writes: the next one waits for a second writer, which comes
    // after the first has queued, while no commit is under way.
    List<Future<?>> later = new ArrayList<>();
    later.add(submit(committer, "x"));
    waitUntil(committer::queued, 1);
    later.add(submit(committer, "y"));
    for (Future<?> f : later) {
      f.get();
    }
    assertEquals(List.of("x", "y"), batches.get(batches.size() - 1).stream().sorted().toList());
  }

  @Test
  void aFailedBatchFailsItsWritesAndTheNextBatchRuns() {
    RuntimeException boom = new IllegalStateException("boom");
    GroupCommitter<Named> committer =
        new GroupCommitter<>(
            batch -> {
              record(batch);
              if (batch.get(0).name.equals("doomed")) {
                throw boom;
              }
            },
            16,
            0);
    Named doomed = new Named("doomed");
    committer.submit(doomed);
    assertSame(boom, doomed.failure());

    Named fine = new Named("fine");
    committer.submit(fine);
    assertNull(fine.failure());
    assertEquals(List.of(List.of("doomed"), List.of("fine")), batches);
  }

  @Test
  void aFailureTheActionRecordsReachesOnlyItsWrite() {
    RuntimeException refused = new IllegalArgumentException("refused");
    GroupCommitter<Named> committer =
        new GroupCommitter<>(
            batch -> {
              for (Named j : batch) {
                if (j.name.equals("bad")) {
                  j.fail(refused);
                }
              }
            },
            16,
            0);
    Named bad = new Named("bad");
    Named good = new Named("good");
    committer.submit(bad);
    committer.submit(good);
    assertSame(refused, bad.failure());
    assertNull(good.failure());
  }

  private Future<?> submit(GroupCommitter<Named> committer, String name) {
    return threads.submit(() -> committer.submit(new Named(name)));
  }

  private static void waitUntil(IntSupplier value, int expected) throws InterruptedException {
    while (value.getAsInt() < expected) {
      Thread.sleep(1);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
