package dev.memsidecar.core.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.core.Scope;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

// A regression must fail, not hang.
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TestEventBus {
  private static final Runnable NO_WAKE = () -> {};
  private static final Scope ACME = Scope.workspace("acme");
  private static final Scope ALICE = Scope.user("acme", "alice");
  private static final Scope BOB = Scope.user("acme", "bob");

  private final EventBus bus = new EventBus();

  private static RuntimeEvent event(String type, Scope scope) {
    return event(type, scope, "");
  }

  private static RuntimeEvent event(String type, Scope scope, String runId) {
    return new RuntimeEvent(type, Instant.now(), runId, "ns", scope, Map.of());
  }

  private static List<String> drainTypes(Watch watch) {
    List<String> types = new ArrayList<>();
    for (RuntimeEvent e = watch.poll(); e != null; e = watch.poll()) {
      types.add(e.type() + (e.runId().isEmpty() ? "" : "@" + e.runId()));
    }
    return types;
  }

  private static List<RuntimeEvent> drain(Watch watch) {
    List<RuntimeEvent> events = new ArrayList<>();
    for (RuntimeEvent e = watch.poll(); e != null; e = watch.poll()) {
      events.add(e);
    }
    return events;
  }

  @Test
  void emptyTypesSeeEveryTypeOfTheirWorkspace() {
    Watch all = bus.watch(ACME, Set.of(), NO_WAKE);
    bus.publish(event("run.begin", ACME));
    bus.publish(event("memory.stored", ALICE));
    bus.publish(event("toolrule.captured", new Scope("acme", "", "agent-1", "s-1")));
    assertEquals(List.of("run.begin", "memory.stored", "toolrule.captured"), drainTypes(all));
  }

  @Test
  void typesMatchExactlyOrByPrefixEndingInDot() {
    Watch memory = bus.watch(ACME, List.of("memory.", "run.end"), NO_WAKE);
    Watch noDot = bus.watch(ACME, List.of("memory"), NO_WAKE);
    for (String type :
        List.of(
            "run.begin",
            "memory.stored",
            "run.end",
            "memory.extraction.failed",
            "memory",
            "memoryx.stored",
            "run.ended")) {
      bus.publish(event(type, ACME));
    }
    assertEquals(
        List.of("memory.stored", "run.end", "memory.extraction.failed"), drainTypes(memory));
    assertEquals(List.of("memory"), drainTypes(noDot));
  }

  @Test
  void watcherNeverSeesAnotherWorkspace() {
    Watch acme = bus.watch(ACME, Set.of(), NO_WAKE);
    Watch globex = bus.watch(Scope.workspace("globex"), Set.of(), NO_WAKE);
    bus.publish(event("memory.stored", Scope.user("globex", "alice"), "g"));
    bus.publish(event("memory.stored", ALICE, "a"));
    bus.publish(event("memory.stored", Scope.workspace(""), "none"));
    assertEquals(List.of("memory.stored@a"), drainTypes(acme));
    assertEquals(List.of("memory.stored@g"), drainTypes(globex));
  }

  @Test
  void watcherWithAUserSeesOnlyThatUsersEventsAndWorkspaceWatcherSeesAll() {
    Watch alice = bus.watch(ALICE, Set.of(), NO_WAKE);
    Watch workspace = bus.watch(ACME, Set.of(), NO_WAKE);
    bus.publish(event("memory.stored", ALICE, "1"));
    bus.publish(event("memory.stored", BOB, "2"));
    bus.publish(event("memory.stored", ACME, "3"));
    bus.publish(event("memory.stored", new Scope("acme", "alice", "agent-1", "s-9"), "4"));
    assertEquals(List.of("memory.stored@1", "memory.stored@4"), drainTypes(alice));
    assertEquals(
        List.of("memory.stored@1", "memory.stored@2", "memory.stored@3", "memory.stored@4"),
        drainTypes(workspace));
  }

  @Test
  void agentAndSessionIdsNarrowTheWatchToo() {
    Watch agent = bus.watch(new Scope("acme", "", "agent-1", ""), Set.of(), NO_WAKE);
    Watch session = bus.watch(new Scope("acme", "alice", "agent-1", "s-1"), Set.of(), NO_WAKE);
    bus.publish(event("run.begin", new Scope("acme", "alice", "agent-1", "s-1"), "1"));
    bus.publish(event("run.begin", new Scope("acme", "alice", "agent-1", "s-2"), "2"));
    bus.publish(event("run.begin", new Scope("acme", "bob", "agent-2", "s-1"), "3"));
    bus.publish(event("run.begin", new Scope("acme", "bob", "agent-1", ""), "4"));
    assertEquals(List.of("run.begin@1", "run.begin@2", "run.begin@4"), drainTypes(agent));
    assertEquals(List.of("run.begin@1"), drainTypes(session));
  }

  @Test
  void scopeAndTypesAreValidatedNamingTheField() {
    assertInvalid("scope.workspace_id", new Scope("", "alice", "", ""), Set.of());
    assertInvalid("scope.workspace_id", Scope.workspace("../etc"), Set.of());
    assertInvalid("scope.user_id", Scope.user("acme", "a/b"), Set.of());
    assertInvalid("scope.agent_id", new Scope("acme", "", "..", ""), Set.of());
    assertInvalid("scope.session_id", new Scope("acme", "", "", "s 1"), Set.of());
    List<String> tooMany = new ArrayList<>();
    for (int i = 0; i <= EventBus.MAX_TYPES; i++) {
      tooMany.add("type." + i);
    }
    MemoryException e = assertInvalid("types", ACME, tooMany);
    assertEquals("types has 33 entries, at most 32 are allowed", e.getMessage());
    assertInvalid("types", ACME, List.of(""));
    assertInvalid("types", ACME, List.of("x".repeat(EventBus.MAX_TYPE_LENGTH + 1)));
    assertInvalid("types", ACME, Collections.singletonList(null));
    // The bounds themselves are fine.
    bus.watch(ACME, tooMany.subList(0, EventBus.MAX_TYPES), NO_WAKE).close();
    bus.watch(ACME, List.of("x".repeat(EventBus.MAX_TYPE_LENGTH)), NO_WAKE).close();
    assertEquals(0, bus.watchCount());
  }

  private MemoryException assertInvalid(String field, Scope scope, Collection<String> types) {
    MemoryException e = assertThrows(MemoryException.class, () -> bus.watch(scope, types, NO_WAKE));
    assertEquals(MemoryException.Code.INVALID_ARGUMENT, e.code());
    assertEquals(field, e.field(), e.getMessage());
    return e;
  }

  @Test
  void slowWatcherNeverBlocksPublishAndOthersGetEverything() {
    Watch slow = bus.watch(ACME, Set.of(), NO_WAKE);
    Watch fast = bus.watch(ACME, Set.of(), NO_WAKE);
    int published = EventBus.DEFAULT_BUFFER + 10_000;
    int fastReceived = 0;
    for (int i = 0; i < published; i++) {
      bus.publish(event("memory.stored", ACME, Integer.toString(i)));
      fastReceived += drain(fast).size();
    }
    assertEquals(published, fastReceived);
    assertEquals(0, fast.dropped());
    assertEquals(10_000, slow.dropped());
    List<RuntimeEvent> got = drain(slow);
    assertEquals(EventBus.DEFAULT_BUFFER + 1, got.size());
    for (int i = 0; i < EventBus.DEFAULT_BUFFER; i++) {
      assertEquals(Integer.toString(i), got.get(i).runId(), "the oldest events are kept");
    }
    RuntimeEvent notice = got.get(EventBus.DEFAULT_BUFFER);
    assertEquals(EventBus.DROPPED, notice.type());
    assertEquals(Map.of("count", "10000"), notice.attributes());
    assertEquals(ACME, notice.scope());
  }

  @Test
  void droppedNoticeTakesThePlaceOfTheLostEventsOnceThereIsRoom() {
    EventBus small = new EventBus(4);
    Watch watch = small.watch(ACME, Set.of("memory."), NO_WAKE);
    for (int i = 0; i < 10; i++) {
      small.publish(event("memory.stored", ACME, Integer.toString(i)));
    }
    assertEquals(6, watch.dropped());
    assertEquals("memory.stored@0", drainTypes(watch, 2).get(0));

    small.publish(event("memory.stored", ACME, "10"));

    // The notice is delivered whatever the watcher's types.
    List<RuntimeEvent> rest = drain(watch);
    assertEquals(
        List.of("memory.stored", "memory.stored", "events.dropped", "memory.stored"),
        rest.stream().map(RuntimeEvent::type).toList());
    assertEquals(List.of("2", "3", "", "10"), rest.stream().map(RuntimeEvent::runId).toList());
    assertEquals("6", rest.get(2).attributes().get("count"));
    small.publish(event("memory.merged", ACME, "11"));
    assertEquals(List.of("memory.merged@11"), drainTypes(watch));
    assertEquals(6, watch.dropped(), "the total since the watch opened");
  }

  @Test
  void droppedCountsAreReportedPerNoticeAndAddUpToTheLoss() {
    EventBus small = new EventBus(4);
    Watch watch = small.watch(ACME, Set.of(), NO_WAKE);
    int published = 0;
    long delivered = 0;
    long reportedLost = 0;
    for (int round = 0; round < 50; round++) {
      for (int i = 0; i < 3 + round % 7; i++) {
        small.publish(event("run.end", ACME));
        published++;
      }
      for (RuntimeEvent e : drainFirst(watch, round % 3)) {
        if (e.type().equals(EventBus.DROPPED)) {
          reportedLost += Long.parseLong(e.attributes().get("count"));
        } else {
          delivered++;
        }
      }
    }
    for (RuntimeEvent e : drain(watch)) {
      if (e.type().equals(EventBus.DROPPED)) {
        reportedLost += Long.parseLong(e.attributes().get("count"));
      } else {
        delivered++;
      }
    }
    assertTrue(reportedLost > 0);
    assertEquals(watch.dropped(), reportedLost);
    assertEquals(published, delivered + reportedLost);
  }

  private static List<String> drainTypes(Watch watch, int n) {
    List<String> types = new ArrayList<>();
    for (RuntimeEvent e : drainFirst(watch, n)) {
      types.add(e.type() + (e.runId().isEmpty() ? "" : "@" + e.runId()));
    }
    return types;
  }

  private static List<RuntimeEvent> drainFirst(Watch watch, int n) {
    List<RuntimeEvent> events = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      RuntimeEvent e = watch.poll();
      if (e == null) {
        break;
      }
      events.add(e);
    }
    return events;
  }

  @Test
  void closeStopsDeliveryAndLeavesTheBus() {
    Watch watch = bus.watch(ACME, Set.of(), NO_WAKE);
    Watch other = bus.watch(ACME, Set.of(), NO_WAKE);
    bus.publish(event("run.begin", ACME));
    assertEquals(2, bus.watchCount());

    watch.close();
    watch.close();
    bus.publish(event("run.end", ACME));

    assertTrue(watch.isClosed());
    assertFalse(watch.isClosedByBus());
    assertNull(watch.poll(), "a closed watch discards what it held");
    assertEquals(1, bus.watchCount());
    assertEquals(List.of("run.begin", "run.end"), drainTypes(other));
  }

  @Test
  void wakeListenerRunsWhenTheBufferStopsBeingEmptyNotForEveryEvent() {
    AtomicInteger wakes = new AtomicInteger();
    Watch watch = bus.watch(ACME, Set.of(), wakes::incrementAndGet);
    bus.publish(event("run.begin", BOB));
    bus.publish(event("run.end", BOB));
    assertEquals(1, wakes.get());
    assertEquals(2, drain(watch).size());
    bus.publish(event("run.begin", BOB));
    assertEquals(2, wakes.get());
    bus.publish(event("run.begin", Scope.workspace("globex")));
    assertEquals(2, wakes.get(), "no wake for an event the watcher does not see");
  }

  @Test
  void failingWakeListenerDoesNotFailThePublisher() {
    Watch watch =
        bus.watch(
            ACME,
            Set.of(),
            () -> {
              throw new IllegalStateException("watcher bug");
            });
    Watch other = bus.watch(ACME, Set.of(), NO_WAKE);
    bus.publish(event("run.begin", ACME));
    assertEquals(1, drain(watch).size());
    assertEquals(1, drain(other).size());
  }

  @Test
  void closingTheBusEndsEveryWatchAndWakesItsWatcher() {
    AtomicInteger wakes = new AtomicInteger();
    Watch watch = bus.watch(ALICE, Set.of(), wakes::incrementAndGet);

    bus.close();

    assertEquals(1, wakes.get());
    assertTrue(watch.isClosedByBus());
    assertEquals(0, bus.watchCount());
    bus.publish(event("run.begin", ALICE));
    assertNull(watch.poll());
    MemoryException e =
        assertThrows(MemoryException.class, () -> bus.watch(ACME, Set.of(), NO_WAKE));
    assertEquals(MemoryException.Code.UNAVAILABLE, e.code());
  }

  @Test
  void concurrentPublishersKeepEachPublishersOrderAndLoseNothingUncounted() throws Exception {
    EventBus small = new EventBus(64);
    int publishers = 4;
    int perPublisher = 20_000;
    Watch watch = small.watch(ACME, Set.of("run."), NO_WAKE);
    ExecutorService pool = Executors.newFixedThreadPool(publishers);
    CountDownLatch go = new CountDownLatch(1);
    AtomicBoolean publishing = new AtomicBoolean(true);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int p = 0; p < publishers; p++) {
        String type = "run.p" + p;
        done.add(
            pool.submit(
                () -> {
                  go.await();
                  for (int i = 0; i < perPublisher; i++) {
                    small.publish(event(type, ACME, Integer.toString(i)));
                  }
                  return null;
                }));
      }
      int[] next = new int[publishers];
      long delivered = 0;
      long reportedLost = 0;
      go.countDown();
      while (publishing.get()) {
        publishing.set(!done.stream().allMatch(Future::isDone));
        for (RuntimeEvent e = watch.poll(); e != null; e = watch.poll()) {
          if (e.type().equals(EventBus.DROPPED)) {
            reportedLost += Long.parseLong(e.attributes().get("count"));
            continue;
          }
          int p = e.type().charAt("run.p".length()) - '0';
          int i = Integer.parseInt(e.runId());
          assertTrue(i >= next[p], "publisher " + p + " went back from " + next[p] + " to " + i);
          next[p] = i + 1;
          delivered++;
        }
      }
      for (Future<?> f : done) {
        f.get();
      }
      assertEquals((long) publishers * perPublisher, delivered + reportedLost);
      assertEquals(watch.dropped(), reportedLost);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void concurrentPublishersLoseNothingWhenTheBufferIsLargeEnough() throws Exception {
    int publishers = 4;
    int perPublisher = 5_000;
    EventBus roomy = new EventBus(publishers * perPublisher);
    Watch watch = roomy.watch(ACME, Set.of(), NO_WAKE);
    ExecutorService pool = Executors.newFixedThreadPool(publishers);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int p = 0; p < publishers; p++) {
        String type = "run.p" + p;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < perPublisher; i++) {
                    roomy.publish(event(type, ACME, Integer.toString(i)));
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    int[] next = new int[publishers];
    for (RuntimeEvent e : drain(watch)) {
      int p = e.type().charAt("run.p".length()) - '0';
      assertEquals(next[p]++, Integer.parseInt(e.runId()));
    }
    for (int p = 0; p < publishers; p++) {
      assertEquals(perPublisher, next[p]);
    }
    assertEquals(0, watch.dropped());
  }
}
