package dev.memsidecar.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.MemoryRecord;
import dev.memsidecar.api.MemoryStatus;
import dev.memsidecar.api.Validity;
import dev.memsidecar.core.config.Flags;
import dev.memsidecar.core.config.RunConfig;
import dev.memsidecar.core.config.ScopeKind;
import dev.memsidecar.core.events.Watch;
import dev.memsidecar.core.run.Dedupe;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine over the kit's in-memory provider, wired by hand ({@link Engines}). */
class TestMemoryEngine {
  @TempDir Path data;

  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
  private MemoryEngine engine;

  @BeforeEach
  void open() {
    engine = engine(Flags.ALL_ON);
  }

  @AfterEach
  void close() {
    engine.close();
  }

  private MemoryEngine engine(Flags flags) {
    return Engines.open(
        data,
        flags,
        List.of(
            Engines.profile("workspace", ScopeKind.WORKSPACE),
            Engines.profile("user", ScopeKind.USER),
            Engines.disabled("archive", ScopeKind.WORKSPACE)),
        Engines.clock(now::get));
  }

  private WriteDecision remember(Scope scope, String profile, String content, String requestId) {
    return engine.remember(
        new RememberInput(
            scope, profile, content, null, List.of(), Map.of(), null, null, requestId, ""),
        RequestOptions.DEFAULT);
  }

  private List<MemoryHit> search(Scope scope, String query, List<String> profiles) {
    return engine.search(
        new SearchInput(scope, query, profiles, 0, Set.of(), List.of(), 0), RequestOptions.DEFAULT);
  }

  @Test
  void sameRequestIdStoresOnceAndReturnsTheFirstMemory() {
    Scope scope = Scope.workspace("acme");
    WriteDecision first = remember(scope, "", "Deploys happen on Tuesdays", "req-1");
    WriteDecision again = remember(scope, "", "Deploys happen on Tuesdays", "req-1");
    assertEquals(first.memory().record().id(), again.memory().record().id());
    assertEquals(1, list(scope, "", false).memories().size());
    // The same request id in another workspace is another request.
    WriteDecision other =
        remember(Scope.workspace("globex"), "", "Deploys happen on Tuesdays", "req-1");
    assertTrue(!other.memory().record().id().equals(first.memory().record().id()));
  }

  @Test
  void searchWithoutProfilesSkipsProfilesTheScopeCannotReach() {
    remember(Scope.user("acme", "alice"), "user", "Alice prefers green tea", "");
    remember(Scope.workspace("acme"), "", "The office tea is green", "");
    List<MemoryHit> workspaceOnly = search(Scope.workspace("acme"), "green tea", List.of());
    assertEquals(1, workspaceOnly.size());
    assertEquals("workspace", workspaceOnly.get(0).memory().record().profile());
    List<MemoryHit> both = search(Scope.user("acme", "alice"), "alice green tea", List.of());
    assertEquals(2, both.size());
    assertEquals("Alice prefers green tea", both.get(0).memory().record().content());
    MemoryException e =
        assertThrows(
            MemoryException.class, () -> search(Scope.workspace("acme"), "tea", List.of("user")));
    assertEquals("scope.user_id", e.field());
  }

  @Test
  void shortTermMemoryStopsBeingRecalledAfterItsTtl() {
    Scope scope = Scope.workspace("acme");
    WriteDecision d =
        engine.remember(
            new RememberInput(
                scope,
                "",
                "Standup moved to 10am this week",
                MemoryKind.EPISODIC,
                List.of(),
                Map.of(),
                null,
                Validity.SHORT_TERM,
                "",
                ""),
            RequestOptions.DEFAULT);
    assertEquals(
        now.get().plus(RunConfig.DEFAULT_SHORT_TERM_TTL), d.memory().record().expireTime());
    assertEquals(1, search(scope, "standup", List.of()).size());
    now.set(now.get().plus(RunConfig.DEFAULT_SHORT_TERM_TTL).plus(Duration.ofSeconds(1)));
    assertEquals(0, search(scope, "standup", List.of()).size());
  }

  @Test
  void forgetHidesFromSearchAndListButGetShowsStatus() {
    Scope scope = Scope.workspace("acme");
    String id = remember(scope, "", "VPN host is vpn.acme.test", "").memory().record().id();
    assertTrue(engine.forget(scope, "", id, RequestOptions.DEFAULT));
    assertTrue(engine.forget(scope, "", id, RequestOptions.DEFAULT));
    assertEquals(
        MemoryStatus.FORGOTTEN,
        engine.get(scope, "", id, RequestOptions.DEFAULT).record().status());
    assertEquals(0, search(scope, "vpn host", List.of()).size());
    assertEquals(0, list(scope, "", false).memories().size());
    assertEquals(1, list(scope, "", true).memories().size());
    assertEquals(
        MemoryException.Code.NOT_FOUND,
        assertThrows(
                MemoryException.class,
                () -> engine.forget(Scope.workspace("other"), "", id, RequestOptions.DEFAULT))
            .code());
  }

  @Test
  void disabledProfileRefusesWritesAndIsNotSearched() {
    Scope scope = Scope.workspace("acme");
    assertEquals(
        MemoryException.Code.PERMISSION_DENIED,
        assertThrows(MemoryException.class, () -> remember(scope, "archive", "x y z", "")).code());
    remember(scope, "", "release train leaves friday", "");
    assertEquals(1, search(scope, "release train", List.of()).size());
    assertEquals(0, search(scope, "release train", List.of("archive")).size());
  }

  @Test
  void pageTokenOfOneUserIsRefusedForAnother() {
    for (int i = 0; i < 3; i++) {
      remember(Scope.user("acme", "alice"), "user", "alice fact " + i, "");
    }
    MemoryPage page =
        engine.list(
            new ListInput(Scope.user("acme", "alice"), "user", 2, "", false),
            RequestOptions.DEFAULT);
    assertEquals(2, page.memories().size());
    MemoryException e =
        assertThrows(
            MemoryException.class,
            () ->
                engine.list(
                    new ListInput(
                        Scope.user("acme", "bob"), "user", 2, page.nextPageToken(), false),
                    RequestOptions.DEFAULT));
    assertEquals("page_token", e.field());
  }

  @Test
  void oversizedContentIsResourceExhausted() {
    MemoryException e =
        assertThrows(
            MemoryException.class,
            () ->
                remember(
                    Scope.workspace("acme"), "", "x".repeat(Limits.MAX_CONTENT_BYTES + 1), ""));
    assertEquals(MemoryException.Code.RESOURCE_EXHAUSTED, e.code());
    assertEquals("content", e.field());
  }

  @Test
  void searchStopsWhenTheCallerHasGone() {
    remember(Scope.user("acme", "alice"), "user", "Alice prefers green tea", "");
    MemoryException e =
        assertThrows(
            MemoryException.class,
            () ->
                engine.search(
                    new SearchInput(
                        Scope.user("acme", "alice"), "tea", List.of(), 0, Set.of(), List.of(), 0),
                    new RequestOptions(false, () -> true)));
    assertEquals(MemoryException.Code.CANCELLED, e.code());
  }

  private WriteDecision remember(Scope scope, String content, List<String> tags, String requestId) {
    return engine.remember(
        new RememberInput(scope, "", content, null, tags, Map.of(), null, null, requestId, ""),
        RequestOptions.DEFAULT);
  }

  @Test
  void aRepeatedOrParaphrasedRememberMergesIntoTheFirstRecord() {
    Scope scope = Scope.workspace("acme");
    WriteDecision first = remember(scope, "The user prefers dark mode", List.of("ui"), "");
    now.set(now.get().plusSeconds(60));
    WriteDecision paraphrase =
        remember(scope, "User prefers dark mode in the editor", List.of("editor"), "req-2");
    assertEquals(WriteDecision.Outcome.MERGED, paraphrase.outcome(), paraphrase.reason());
    MemoryRecord merged = paraphrase.memory().record();
    assertEquals(first.memory().record().id(), merged.id());
    assertTrue(paraphrase.reason().startsWith("merged into " + merged.id()), paraphrase.reason());
    assertEquals(List.of("ui", "editor"), merged.tags());
    assertEquals(List.of("remember", "remember:req-2"), merged.sourceRefs());
    assertEquals(now.get(), merged.updateTime());
    WriteDecision repeated = remember(scope, "the user prefers dark mode.", List.of(), "");
    assertEquals(WriteDecision.Outcome.MERGED, repeated.outcome(), repeated.reason());
    assertEquals(merged.id(), repeated.memory().record().id());
    assertEquals(1, list(scope, "", true).memories().size());
    assertEquals(
        List.of(
            WriteDecision.Outcome.STORED,
            WriteDecision.Outcome.MERGED,
            WriteDecision.Outcome.MERGED),
        engine.writeDecisions(scope, "", null, 10, "").entries().stream()
            .map(e -> e.decision().outcome())
            .toList(),
        "every Remember is audited");
  }

  @Test
  void aRememberWithANewValueSupersedesTheOldRecord() {
    Scope scope = Scope.workspace("acme");
    String oldId = remember(scope, "", "The deploy day is Tuesday", "").memory().record().id();
    try (Watch watch = engine.events().watch(scope, List.of("memory."), () -> {})) {
      WriteDecision d = remember(scope, "", "The deploy day is now Thursday", "");
      assertEquals(WriteDecision.Outcome.STORED, d.outcome());
      assertTrue(d.reason().contains("; supersedes " + oldId + ": "), d.reason());
      MemoryRecord successor = d.memory().record();
      assertEquals(oldId, successor.metadata().get(Dedupe.SUPERSEDES));
      MemoryRecord old = engine.get(scope, "", oldId, RequestOptions.DEFAULT).record();
      assertEquals(MemoryStatus.SUPERSEDED, old.status());
      assertEquals(successor.id(), old.metadata().get(Dedupe.SUPERSEDED_BY));
      assertEquals("memory.superseded", watch.poll().type());
      assertEquals("memory.stored", watch.poll().type());
    }
    List<MemoryHit> hits = search(scope, "deploy day", List.of());
    assertEquals(List.of("The deploy day is now Thursday"), contents(hits));
  }

  @Test
  void aRetryOfARequestThatMergedReturnsTheSameOutcomeAndMemoryAndChangesNothing() {
    Scope scope = Scope.workspace("acme");
    remember(scope, "", "Run `npm run check:rules` before committing", "");
    WriteDecision first =
        remember(scope, "Always run `npm run check:rules` before you commit", List.of("ci"), "r-7");
    assertEquals(WriteDecision.Outcome.MERGED, first.outcome(), first.reason());
    MemoryRecord afterFirst =
        engine.get(scope, "", first.memory().record().id(), RequestOptions.DEFAULT).record();
    int audited = engine.writeDecisions(scope, "", null, 100, "").entries().size();
    now.set(now.get().plusSeconds(60));
    try (Watch watch = engine.events().watch(scope, List.of(), () -> {})) {
      WriteDecision retry =
          remember(
              scope, "Always run `npm run check:rules` before you commit", List.of("ci"), "r-7");
      assertEquals(WriteDecision.Outcome.MERGED, retry.outcome(), retry.reason());
      assertEquals(afterFirst, retry.memory().record());
      assertEquals(
          "already merged into " + afterFirst.id() + " by request_id 'r-7'", retry.reason());
      assertNull(watch.poll(), "a retry emits nothing");
    }
    assertEquals(
        afterFirst,
        engine.get(scope, "", afterFirst.id(), RequestOptions.DEFAULT).record(),
        "a retry changes nothing");
    assertEquals(1, list(scope, "", true).memories().size());
    assertEquals(audited, engine.writeDecisions(scope, "", null, 100, "").entries().size());
  }

  @Test
  void aRetryOfARequestThatSupersededReturnsTheSameOutcomeAndMemoryAndChangesNothing() {
    Scope scope = Scope.workspace("acme");
    remember(scope, "", "The deploy day is Tuesday", "");
    WriteDecision first = remember(scope, "", "The deploy day is now Thursday", "r-8");
    assertTrue(first.reason().contains("supersedes"), first.reason());
    now.set(now.get().plusSeconds(60));
    WriteDecision retry = remember(scope, "", "The deploy day is now Thursday", "r-8");
    assertEquals(WriteDecision.Outcome.STORED, retry.outcome());
    assertEquals(first.memory().record(), retry.memory().record());
    assertEquals(2, list(scope, "", true).memories().size());
    assertEquals(2, engine.writeDecisions(scope, "", null, 100, "").entries().size());
  }

  @Test
  void theClientsOwnWordsAreStoredHoweverShortOrChatty() {
    Scope scope = Scope.workspace("acme");
    for (String content : List.of("alpha", "hi", "Thanks!", "Reply exactly OK")) {
      WriteDecision d = remember(scope, "", content, "");
      assertEquals(WriteDecision.Outcome.STORED, d.outcome(), content + ": " + d.reason());
      assertEquals(8.0f, d.gateScore());
    }
    assertEquals(4, list(scope, "", false).memories().size());
  }

  @Test
  void concurrentRemembersOfOneFactLeaveOneRecord() throws Exception {
    Scope scope = Scope.workspace("acme");
    int writers = 8;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<WriteDecision>> decisions = new ArrayList<>();
      for (int i = 0; i < writers; i++) {
        decisions.add(
            pool.submit(
                () -> {
                  start.await();
                  return remember(scope, "", "The VPN gateway is vpn.acme.test", "");
                }));
      }
      start.countDown();
      Map<WriteDecision.Outcome, Integer> outcomes = new EnumMap<>(WriteDecision.Outcome.class);
      for (Future<WriteDecision> d : decisions) {
        outcomes.merge(d.get().outcome(), 1, Integer::sum);
      }
      assertEquals(
          Map.of(WriteDecision.Outcome.STORED, 1, WriteDecision.Outcome.MERGED, writers - 1),
          outcomes);
    } finally {
      pool.shutdownNow();
    }
    assertEquals(1, list(scope, "", true).memories().size());
  }

  private static List<String> contents(List<MemoryHit> hits) {
    return hits.stream().map(h -> h.memory().record().content()).toList();
  }

  private MemoryPage list(Scope scope, String profile, boolean includeInactive) {
    return engine.list(
        new ListInput(scope, profile, 0, "", includeInactive), RequestOptions.DEFAULT);
  }
}
