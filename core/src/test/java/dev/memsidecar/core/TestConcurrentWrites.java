package dev.memsidecar.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.conformance.InMemoryProvider;
import dev.memsidecar.core.config.Flags;
import dev.memsidecar.core.config.RunConfig;
import dev.memsidecar.core.config.ScopeKind;
import dev.memsidecar.core.run.EndRunInput;
import dev.memsidecar.core.run.EndRunResult;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Concurrent writes to one namespace over a store whose puts take time, as a database's commits do:
 * a Remember is decided under the namespace's lock and written after it ({@link MemoryWriter}), so
 * these check that no decision misses an earlier one and no put overtakes an earlier put of the
 * same record.
 */
class TestConcurrentWrites {
  private static final Scope ACME = Scope.user("acme", "alice");

  @TempDir Path data;

  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
  // Run by each put before the kit's in-memory store puts the record.
  private volatile Consumer<MemoryRecord> beforePut = r -> {};
  private MemoryEngine engine;
  private ExecutorService pool;

  @BeforeEach
  void open() {
    engine =
        Engines.open(
            data,
            Flags.ALL_ON,
            List.of(Engines.profile("user", ScopeKind.USER)),
            Engines.clock(now::get),
            Engines.providers(
                ForwardingStore.wrapping(
                    new InMemoryProvider(),
                    store ->
                        new ForwardingStore(store) {
                          @Override
                          public void put(MemoryRecord record) {
                            beforePut.accept(record);
                            store.put(record);
                          }
                        })),
            InMemoryProvider.NAME,
            ScriptedExtractor.provider(),
            new RunConfig("rules", Map.of(), Duration.ofHours(24), Duration.ofDays(7), true));
    pool = Executors.newCachedThreadPool();
  }

  @AfterEach
  void close() {
    pool.shutdownNow();
    engine.close();
  }

  @Test
  void concurrentRemembersOfOneFactKeepEveryRequestsSourceWhilePutsLag() throws Exception {
    beforePut = r -> sleepMillis(ThreadLocalRandom.current().nextInt(4));
    int writers = 8;
    for (String host : List.of("vpn", "git", "ci", "wiki", "mail")) {
      String fact = "The " + host + " gateway is " + host + ".acme.test";
      CountDownLatch start = new CountDownLatch(1);
      List<Future<WriteDecision>> decisions = new ArrayList<>();
      for (int i = 0; i < writers; i++) {
        String requestId = host + "-" + i;
        decisions.add(
            pool.submit(
                () -> {
                  start.await();
                  return remember(fact, requestId);
                }));
      }
      start.countDown();
      Map<WriteDecision.Outcome, Integer> outcomes = new EnumMap<>(WriteDecision.Outcome.class);
      for (Future<WriteDecision> d : decisions) {
        outcomes.merge(d.get(30, TimeUnit.SECONDS).outcome(), 1, Integer::sum);
      }
      assertEquals(
          Map.of(WriteDecision.Outcome.STORED, 1, WriteDecision.Outcome.MERGED, writers - 1),
          outcomes,
          fact);
      List<MemoryRecord> stored = records().stream().filter(r -> r.content().equals(fact)).toList();
      assertEquals(1, stored.size(), fact);
      // Each merge was put after the put it merged into: none overwrote another's source.
      for (int i = 0; i < writers; i++) {
        assertTrue(
            stored.get(0).sourceRefs().contains("remember:" + host + "-" + i),
            host + "-" + i + " in " + stored.get(0).sourceRefs());
      }
    }
    assertEquals(5, records().size());
  }

  @Test
  void aRetryOfARequestStillBeingWrittenAnswersOnceItsRecordIsStored() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    Future<WriteDecision> first = rememberHeld("Deploys are on Tuesdays", release, null);
    Future<WriteDecision> retry = pool.submit(() -> remember("Deploys are on Tuesdays", "req-1"));
    assertNotDoneWithin(retry);
    release.countDown();
    assertEquals(WriteDecision.Outcome.STORED, first.get(10, TimeUnit.SECONDS).outcome());
    WriteDecision again = retry.get(10, TimeUnit.SECONDS);
    assertEquals(first.get().memory().record().id(), again.memory().record().id());
    assertTrue(again.reason().startsWith("already stored by request_id"), again.reason());
    assertEquals(1, records().size());
  }

  @Test
  void aRunsFactsWaitForTheRemembersDecidedBeforeThemAndMergeIntoThem() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    Future<WriteDecision> remembered =
        rememberHeld("Alice prefers green tea in the morning", release, null);
    Future<EndRunResult> run = pool.submit(() -> endRun("Alice prefers green tea in the morning"));
    assertNotDoneWithin(run);
    release.countDown();
    assertEquals(WriteDecision.Outcome.STORED, remembered.get(10, TimeUnit.SECONDS).outcome());
    List<WriteDecision> facts = run.get(10, TimeUnit.SECONDS).decisions();
    assertEquals(1, facts.size());
    assertEquals(WriteDecision.Outcome.MERGED, facts.get(0).outcome(), facts.get(0).reason());
    List<MemoryRecord> stored = records();
    assertEquals(1, stored.size());
    assertTrue(stored.get(0).sourceRefs().contains("remember:req-1"), stored.toString());
    assertTrue(stored.get(0).sourceRefs().size() >= 2, stored.get(0).sourceRefs().toString());
  }

  @Test
  void aRunsFactDoesNotMergeIntoARememberWhosePutFailed() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    Future<WriteDecision> remembered =
        rememberHeld(
            "Alice prefers green tea in the morning",
            release,
            MemoryException.unavailable("the disk is full", null));
    Future<EndRunResult> run = pool.submit(() -> endRun("Alice prefers green tea in the morning"));
    assertNotDoneWithin(run);
    release.countDown();
    ExecutionException failed =
        assertThrows(ExecutionException.class, () -> remembered.get(10, TimeUnit.SECONDS));
    assertTrue(failed.getCause().getMessage().contains("the disk is full"), failed.toString());
    List<WriteDecision> facts = run.get(10, TimeUnit.SECONDS).decisions();
    assertEquals(WriteDecision.Outcome.STORED, facts.get(0).outcome(), facts.get(0).reason());
    List<MemoryRecord> stored = records();
    assertEquals(1, stored.size());
    assertFalse(stored.get(0).sourceRefs().contains("remember:req-1"), stored.toString());
  }

  /**
   * Starts a Remember of {@code content} (request id "req-1") whose put waits until {@code release}
   * opens, then throws {@code failure} if there is one; returns once that put started, the puts
   * after it no longer held.
   */
  private Future<WriteDecision> rememberHeld(
      String content, CountDownLatch release, MemoryException failure) throws Exception {
    CountDownLatch putStarted = new CountDownLatch(1);
    beforePut =
        r -> {
          putStarted.countDown();
          await(release);
          if (failure != null) {
            throw failure;
          }
        };
    Future<WriteDecision> remembered = pool.submit(() -> remember(content, "req-1"));
    assertTrue(putStarted.await(10, TimeUnit.SECONDS));
    beforePut = r -> {};
    return remembered;
  }

  private EndRunResult endRun(String fact) {
    return engine.endRun(
        new EndRunInput(
            ACME,
            "run-1",
            ScriptedExtractor.line("user", "semantic", 9, true, fact),
            "",
            List.of(),
            Map.of()),
        RequestOptions.DEFAULT);
  }

  private WriteDecision remember(String content, String requestId) {
    return engine.remember(
        new RememberInput(
            ACME, "user", content, null, List.of(), Map.of(), null, null, requestId, ""),
        RequestOptions.DEFAULT);
  }

  private List<MemoryRecord> records() {
    return engine
        .list(new ListInput(ACME, "user", 100, "", true), RequestOptions.DEFAULT)
        .memories()
        .stream()
        .map(StoredMemory::record)
        .toList();
  }

  private static void assertNotDoneWithin(Future<?> f) throws Exception {
    try {
      f.get(300, TimeUnit.MILLISECONDS);
    } catch (TimeoutException expected) {
      return;
    }
    assertFalse(f.isDone(), "finished while the record it builds on was still being written");
  }

  private static void sleepMillis(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
