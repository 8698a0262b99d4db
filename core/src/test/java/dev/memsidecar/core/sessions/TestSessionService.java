package dev.memsidecar.core.sessions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.Embedder;
import dev.memsidecar.core.RequestOptions;
import dev.memsidecar.core.Scope;
import dev.memsidecar.core.config.SessionConfig;
import dev.memsidecar.core.control.ControlStoresForTests;
import dev.memsidecar.core.control.SqlControlStore;
import dev.memsidecar.toolkit.HashEmbedder;
import dev.memsidecar.toolkit.HybridScore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestSessionService {
  private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");

  @TempDir Path data;

  @Test
  void indexTermsAreStemmedKeywordsInBothLanguages() {
    assertEquals(List.of("hike", "mountain"), SessionService.indexTerms("Hiking in the mountains"));
    assertTrue(SessionService.indexTerms("我喜欢咖啡").contains("咖啡"));
    Map<String, Integer> counts =
        SessionService.termCounts(
            SessionMessage.of(MessageRole.USER, "Caroline", "painting and painted", NOW));
    assertEquals(2, counts.get("paint"));
    assertEquals(1, counts.get("caroline"));
  }

  @Test
  void snippetCentresOnTheFirstMatchedWordAndMarksCuts() {
    String filler = "we talked about many other things that afternoon ".repeat(12);
    String text = filler + "then the violin recital started at seven " + filler;
    String snippet = SessionService.snippet(text, List.of("violin"));
    assertTrue(snippet.contains("violin recital"), snippet);
    assertTrue(snippet.startsWith("…") && snippet.endsWith("…"), snippet);
    assertTrue(snippet.length() <= SessionService.SNIPPET_CHARS + 2, snippet);
    assertEquals("short text", SessionService.snippet("  short   text ", List.of("x")));
  }

  @Test
  void bm25PrefersTheRarerWordAndTheShorterMessage() {
    try (SqlControlStore store = ControlStoresForTests.open(data)) {
      SessionService sessions = service(store);
      Scope scope = new Scope("ws", "u", "", "s");
      sessions.append(
          scope,
          List.of(
              SessionMessage.of(MessageRole.USER, "", "coffee coffee coffee everywhere", NOW),
              SessionMessage.of(MessageRole.USER, "", "coffee at the harbour", NOW),
              SessionMessage.of(
                  MessageRole.USER, "", "a long story about the harbour and its boats", NOW),
              SessionMessage.of(MessageRole.USER, "", "coffee again", NOW)),
          RequestOptions.DEFAULT);
      List<SessionHit> hits =
          sessions.search(
              scope, new SessionService.Query("harbour coffee", SessionStore.Filter.NONE, 10));
      assertEquals("coffee at the harbour", hits.get(0).message().content());
      assertEquals(4, hits.size());
      for (int i = 1; i < hits.size(); i++) {
        assertTrue(hits.get(i - 1).score() >= hits.get(i).score());
      }
    }
  }

  @Test
  void aReplyIsFoundByTheWordsOfTheMessageBeforeIt() {
    try (SqlControlStore store = ControlStoresForTests.open(data)) {
      SessionService sessions = service(store);
      Scope scope = new Scope("ws", "melanie", "", "s");
      // Two appends, as two runs: the reply's context is the question of the other append.
      sessions.append(
          scope,
          List.of(
              SessionMessage.of(MessageRole.USER, "Melanie", "We went to the museum today.", NOW),
              SessionMessage.of(
                  MessageRole.ASSISTANT,
                  "Caroline",
                  "Love the new sneakers! What are they for?",
                  NOW)),
          RequestOptions.DEFAULT);
      sessions.append(
          scope,
          List.of(
              SessionMessage.of(MessageRole.USER, "Melanie", "These are for running.", NOW),
              SessionMessage.of(MessageRole.ASSISTANT, "Caroline", "The kids loved it.", NOW)),
          RequestOptions.DEFAULT);
      List<String> found =
          sessions.evidence(scope, "Which sneakers did she buy?", 10).stream()
              .map(h -> h.message().content())
              .toList();
      // The question has the word, the reply only in its context: both come before the rest.
      assertEquals(
          Set.of("Love the new sneakers! What are they for?", "These are for running."),
          Set.copyOf(found.subList(0, 2)),
          found::toString);
      sessions.close();
    }
  }

  @Test
  void evidenceCarriesWhatAMessageAnswersAndWhatAnsweredIt() {
    try (SqlControlStore store = ControlStoresForTests.open(data)) {
      SessionService sessions = service(store);
      Scope scope = new Scope("ws", "melanie", "", "s");
      sessions.append(
          scope,
          List.of(
              SessionMessage.of(MessageRole.USER, "Melanie", "Any plans for the weekend?", NOW),
              SessionMessage.of(
                  MessageRole.ASSISTANT, "Caroline", "A pottery class with my sister.", NOW),
              SessionMessage.of(MessageRole.USER, "Melanie", "Sounds lovely.", NOW),
              SessionMessage.of(MessageRole.USER, "Melanie", "I bought a kayak today.", NOW)),
          RequestOptions.DEFAULT);
      Map<String, SessionHit> hits = new java.util.HashMap<>();
      sessions
          .evidence(scope, "pottery weekend kayak lovely", 10)
          .forEach(h -> hits.put(h.message().content(), h));
      SessionHit question = hits.get("Any plans for the weekend?");
      assertEquals(null, question.replyTo());
      assertEquals("A pottery class with my sister.", question.answeredBy().content());
      SessionHit answer = hits.get("A pottery class with my sister.");
      assertEquals("Any plans for the weekend?", answer.replyTo().content());
      assertEquals(null, answer.answeredBy(), "it asks nothing");
      assertEquals(
          "A pottery class with my sister.", hits.get("Sounds lovely.").replyTo().content());
      // The message before it is the same speaker's: not a reply.
      assertEquals(null, hits.get("I bought a kayak today.").replyTo());
      // SearchSessions returns the messages alone.
      sessions
          .search(scope, new SessionService.Query("pottery weekend", SessionStore.Filter.NONE, 10))
          .forEach(
              h -> {
                assertEquals(null, h.replyTo());
                assertEquals(null, h.answeredBy());
              });
      sessions.close();
    }
  }

  @Test
  void aSearchThatNamesAMonthFindsWhatWasSaidThen() {
    try (SqlControlStore store = ControlStoresForTests.open(data)) {
      SessionService sessions = service(store);
      Scope scope = new Scope("ws", "joanna", "", "s");
      Instant september = Instant.parse("2022-09-14T13:43:00Z");
      Instant january = Instant.parse("2023-01-20T10:00:00Z");
      sessions.append(
          scope,
          List.of(
              SessionMessage.of(MessageRole.USER, "Joanna", "My laptop crashed again.", january),
              SessionMessage.of(
                  MessageRole.USER, "Joanna", "My laptop crashed, I lost my work.", september)),
          RequestOptions.DEFAULT);
      List<String> found =
          sessions
              .evidence(scope, "What went wrong with the laptop in September 2022?", 10)
              .stream()
              .map(h -> h.message().content())
              .toList();
      assertEquals("My laptop crashed, I lost my work.", found.get(0), found::toString);
      sessions.close();
    }
  }

  @Test
  void aMessageWhoseVectorIsNotMadeYetIsRankedByItsWords() throws InterruptedException {
    GatedEmbedder embedder = new GatedEmbedder();
    try (SqlControlStore store = ControlStoresForTests.open(data);
        SessionService sessions = service(store, embedder)) {
      Scope scope = new Scope("ws", "u", "", "s");
      for (int i = 0; i < 20; i++) {
        sessions.append(
            scope,
            List.of(
                SessionMessage.of(
                    MessageRole.USER, "", "note " + i + " on the zanzibar ferry timetable", NOW)),
            RequestOptions.DEFAULT);
      }
      awaitNone(sessions::vectorsPending);

      embedder.shut();
      try {
        sessions.append(
            scope,
            List.of(SessionMessage.of(MessageRole.USER, "", "the zanzibar ferry", NOW)),
            RequestOptions.DEFAULT);
        List<SessionHit> hits =
            sessions.search(
                scope, new SessionService.Query("zanzibar ferry", SessionStore.Filter.NONE, 5));
        assertEquals(1, sessions.vectorsPending(), "its vector is not made yet");
        // By its words alone it is the best match (the shortest message holding both words).
        assertEquals("the zanzibar ferry", hits.get(0).message().content(), scores(hits) + "");
        assertEquals(
            HybridScore.of(HybridScore.LEXICAL_MEANING_WEIGHT, false, true, 0, 1, false),
            hits.get(0).score(),
            1e-6f);
      } finally {
        embedder.open();
      }
    }
  }

  @Test
  void aSearchWaitsForTheVectorsOfMessagesJustAppended() throws Exception {
    GatedEmbedder embedder = new GatedEmbedder();
    try (SqlControlStore store = ControlStoresForTests.open(data);
        SessionService sessions = service(store, embedder)) {
      Scope scope = new Scope("ws", "u", "", "s");
      embedder.shut();
      sessions.append(
          scope,
          List.of(SessionMessage.of(MessageRole.USER, "", "the zanzibar ferry timetable", NOW)),
          RequestOptions.DEFAULT);
      assertEquals(1, sessions.vectorsPending());
      Thread opener =
          new Thread(
              () -> {
                try {
                  Thread.sleep(300);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                embedder.open();
              });
      long t0 = System.nanoTime();
      opener.start();
      List<SessionHit> hits =
          sessions.search(
              scope, new SessionService.Query("zanzibar ferry", SessionStore.Filter.NONE, 5));
      long waited = System.nanoTime() - t0;
      opener.join();
      assertTrue(waited >= Duration.ofMillis(250).toNanos(), "it waited for the vector: " + waited);
      assertTrue(waited < SessionService.VECTORS_WAIT.toNanos(), "no longer: " + waited);
      // Scored by meaning and words, as every message with a vector is; by its words alone it
      // would score 1.
      HashEmbedder hash = new HashEmbedder();
      float cos =
          (float)
              Embedder.cosine(
                  hash.embed("zanzibar ferry"), hash.embed("the zanzibar ferry timetable"));
      assertEquals(
          HybridScore.of(HybridScore.LEXICAL_MEANING_WEIGHT, true, true, cos, 1, false),
          hits.get(0).score(),
          1e-6f);
      assertTrue(hits.get(0).score() < 1f, scores(hits) + "");
    }
  }

  @Test
  void aSearchThatNamesADayLeansToWhatWasSaidThatDay() throws InterruptedException {
    try (SqlControlStore store = ControlStoresForTests.open(data)) {
      SessionService sessions = service(store);
      Scope scope = new Scope("ws", "melanie", "", "s");
      String thatDay = "Here is my painting of the lake, finished at last.";
      String otherDay = "Here is my painting of the lake.";
      sessions.append(
          scope,
          List.of(
              SessionMessage.of(
                  MessageRole.USER, "Melanie", thatDay, Instant.parse("2023-10-13T18:00:00Z")),
              SessionMessage.of(
                  MessageRole.USER, "Melanie", otherDay, Instant.parse("2023-10-02T18:00:00Z"))),
          RequestOptions.DEFAULT);
      awaitNone(sessions::vectorsPending); // the day is read from a message's vector row
      // The other day's message is shorter, and the month and year both were said in are the same.
      List<String> undated =
          sessions.evidence(scope, "Which painting of the lake did Melanie share?", 10).stream()
              .map(h -> h.message().content())
              .toList();
      assertEquals(List.of(otherDay, thatDay), undated);
      List<SessionHit> dated =
          sessions.evidence(
              scope, "Which painting of the lake did Melanie share on October 13, 2023?", 10);
      assertEquals(
          List.of(thatDay, otherDay),
          dated.stream().map(h -> h.message().content()).toList(),
          () -> scores(dated).toString());
      sessions.close();
    }
  }

  @Test
  void theModelReadsAMessageAfterTheEndOfTheOneBeforeIt() {
    SessionMessage question =
        SessionMessage.of(MessageRole.ASSISTANT, "Caroline", "What are they for?", NOW);
    SessionMessage reply = SessionMessage.of(MessageRole.USER, "Melanie", "For running.", NOW);
    assertEquals(
        "Caroline: What are they for?\nMelanie: For running.",
        SessionVectors.text(question, reply));
    assertEquals("Melanie: For running.", SessionVectors.text(null, reply));
    String longer = "x".repeat(SessionVectors.MAX_TEXT_CHARS);
    String text =
        SessionVectors.text(SessionMessage.of(MessageRole.USER, "", longer + " end", NOW), reply);
    assertTrue(text.endsWith(" end\nMelanie: For running."), text);
    assertEquals(
        SessionVectors.MAX_CONTEXT_CHARS + "\nMelanie: For running.".length(), text.length());
  }

  @Test
  void retentionHidesOldMessagesAndPurgeDeletesThem() {
    try (SqlControlStore store = ControlStoresForTests.open(data)) {
      SessionService sessions =
          new SessionService(
              store, new HashEmbedder(), Clock.fixed(NOW, ZoneOffset.UTC), new SessionConfig(7));
      Scope scope = new Scope("ws", "u", "", "s");
      sessions.append(
          scope,
          List.of(
              SessionMessage.of(
                  MessageRole.USER, "", "old kayak trip", NOW.minus(Duration.ofDays(8))),
              SessionMessage.of(MessageRole.USER, "", "new kayak trip", NOW)),
          RequestOptions.DEFAULT);
      assertEquals(1, sessions.history(scope, 0, "").items().size());
      assertEquals(1, sessions.evidence(scope, "kayak", 10).size());
      assertEquals(1, sessions.purgeExpired());
      assertEquals(1, sessions.list(scope, 0, "").items().get(0).messageCount());
      assertEquals(
          List.of("new kayak trip"),
          store.history(new SessionKey("ws", "u", "s"), Long.MAX_VALUE, null, 10).stream()
              .map(SessionMessage::content)
              .toList());
      sessions.close();
    }
  }

  @Test
  void aMessageIsFoundTheMomentItsAppendReturnsWhileItsPostingsAreWrittenBehind() throws Exception {
    try (SqlControlStore store = ControlStoresForTests.open(data)) {
      CountDownLatch release = new CountDownLatch(1);
      SessionService sessions = service(heldBack(store, release));
      Scope scope = new Scope("ws", "u", "", "s");
      sessions.append(
          scope,
          List.of(
              SessionMessage.of(MessageRole.USER, "", "the violin recital is at seven", NOW),
              SessionMessage.of(MessageRole.ASSISTANT, "", "noted, see you there", NOW)),
          RequestOptions.DEFAULT);
      awaitNone(sessions::vectorsPending);
      SessionService.Query q = new SessionService.Query("violin", SessionStore.Filter.NONE, 10);
      List<SessionHit> before = sessions.search(scope, q);
      assertEquals(2, sessions.postingsPending());
      assertEquals(
          List.of(),
          store.bm25(
              new SessionKey.Owner("ws", "u"),
              Set.of("violin"),
              SessionStore.Filter.NONE,
              10,
              List.of()));
      // The message, and the reply by the words of the message before it.
      assertEquals(2, before.size());
      assertEquals("the violin recital is at seven", before.get(0).message().content());
      release.countDown();
      awaitNone(sessions::postingsPending);
      List<SessionHit> after = sessions.search(scope, q);
      assertEquals(scores(before), scores(after)); // counted once, written or not
      assertEquals(
          2,
          store
              .bm25(
                  new SessionKey.Owner("ws", "u"),
                  Set.of("violin"),
                  SessionStore.Filter.NONE,
                  10,
                  List.of())
              .size());
      sessions.close();
    }
  }

  @Test
  void postingsACrashLeftUnwrittenAreWrittenAtTheNextStartOnce() throws Exception {
    SessionKey key = new SessionKey("ws", "u", "s");
    try (SqlControlStore store = ControlStoresForTests.open(data)) {
      CountDownLatch never = new CountDownLatch(1);
      SessionService crashed = service(heldBack(store, never));
      crashed.append(
          new Scope("ws", "u", "", "s"),
          List.of(
              SessionMessage.of(MessageRole.USER, "", "What are these shoes for?", NOW),
              SessionMessage.of(MessageRole.ASSISTANT, "", "For running.", NOW)),
          RequestOptions.DEFAULT);
      assertEquals(2, store.unindexed(Instant.MAX, 10).size());
      // Its postings never written (the process died): the next service writes them from the
      // messages, the reply with the words of the message before it.
      SessionService next = service(store);
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (!store.unindexed(Instant.MAX, 10).isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertEquals(List.of(), store.unindexed(Instant.MAX, 10));
      List<SessionStore.Match> shoes =
          store.bm25(key.owner(), Set.of("shoe"), SessionStore.Filter.NONE, 10, List.of());
      assertEquals(
          List.of(1L, 2L), shoes.stream().map(SessionStore.Match::sequence).sorted().toList());
      // Written once: writing them again (a retry, another process) changes nothing.
      store.index(
          List.of(
              new SessionStore.Unindexed(
                  key,
                  1,
                  NOW,
                  MessageRole.USER,
                  new SessionStore.IndexTerms(Map.of("shoe", 1), Map.of()))));
      assertEquals(
          shoes, store.bm25(key.owner(), Set.of("shoe"), SessionStore.Filter.NONE, 10, List.of()));
      next.close();
    }
  }

  @Test
  void aSessionDeletedBeforeItsPostingsAreWrittenLeavesNone() throws Exception {
    try (SqlControlStore store = ControlStoresForTests.open(data)) {
      CountDownLatch release = new CountDownLatch(1);
      SessionService sessions = service(heldBack(store, release));
      Scope kept = new Scope("ws", "u", "", "kept");
      Scope gone = new Scope("ws", "u", "", "gone");
      sessions.append(
          kept,
          List.of(SessionMessage.of(MessageRole.USER, "", "kayak on sunday", NOW)),
          RequestOptions.DEFAULT);
      sessions.append(
          gone,
          List.of(SessionMessage.of(MessageRole.USER, "", "kayak and violin", NOW)),
          RequestOptions.DEFAULT);
      assertEquals(1, sessions.delete(gone, RequestOptions.DEFAULT));
      // Not found while its postings wait, nor once they were to be written.
      SessionService.Query violin =
          new SessionService.Query("violin", SessionStore.Filter.NONE, 10);
      assertTrue(saysNothingOf(sessions.search(kept, violin), "violin"));
      release.countDown();
      awaitNone(sessions::postingsPending);
      assertTrue(saysNothingOf(sessions.search(kept, violin), "violin"));
      SessionKey.Owner owner = new SessionKey.Owner("ws", "u");
      assertEquals(
          List.of(), store.bm25(owner, Set.of("violin"), SessionStore.Filter.NONE, 10, List.of()));
      assertEquals(
          1, store.bm25(owner, Set.of("kayak"), SessionStore.Filter.NONE, 10, List.of()).size());
      assertEquals(List.of(), store.unindexed(Instant.MAX, 10));
      sessions.close();
    }
  }

  @Test
  void postingsWhoseWriteFailedAreWrittenLaterAndFoundMeanwhile() throws Exception {
    try (SqlControlStore store = ControlStoresForTests.open(data)) {
      AtomicInteger failures = new AtomicInteger(1);
      SessionService sessions =
          service(
              intercepted(
                  store,
                  () -> {
                    if (failures.getAndDecrement() > 0) {
                      throw new IllegalStateException("the database is down");
                    }
                  }));
      Scope scope = new Scope("ws", "u", "", "s");
      sessions.append(
          scope,
          List.of(SessionMessage.of(MessageRole.USER, "", "the kestrel nests under the roof", NOW)),
          RequestOptions.DEFAULT);
      SessionService.Query q = new SessionService.Query("kestrel", SessionStore.Filter.NONE, 10);
      assertEquals(1, sessions.search(scope, q).size());
      awaitNone(sessions::postingsPending);
      assertTrue(failures.get() < 0, "the first write failed, a later one wrote them");
      assertEquals(
          1,
          store
              .bm25(
                  new SessionKey.Owner("ws", "u"),
                  Set.of("kestrel"),
                  SessionStore.Filter.NONE,
                  10,
                  List.of())
              .size());
      sessions.close();
    }
  }

  /** What a test does before each {@link SessionStore#index} of a store (wait, fail). */
  private interface BeforeIndex {
    void run() throws Exception;
  }

  /** The store, which runs {@code before} before each of its {@link SessionStore#index}. */
  private static SessionStore intercepted(SessionStore store, BeforeIndex before) {
    return (SessionStore)
        Proxy.newProxyInstance(
            SessionStore.class.getClassLoader(),
            new Class<?>[] {SessionStore.class},
            (proxy, method, args) -> {
              if (method.getName().equals("index")) {
                before.run();
              }
              try {
                return method.invoke(store, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  /** The store, whose {@link SessionStore#index} waits for {@code release} (a slow writer). */
  private static SessionStore heldBack(SessionStore store, CountDownLatch release) {
    return intercepted(store, release::await);
  }

  /** The hash embedder, whose batches (the vector worker's) wait while it is {@link #shut}. */
  private static final class GatedEmbedder implements Embedder {
    private final HashEmbedder delegate = new HashEmbedder();
    private volatile CountDownLatch gate = new CountDownLatch(0);

    void shut() {
      gate = new CountDownLatch(1);
    }

    void open() {
      gate.countDown();
    }

    @Override
    public String name() {
      return delegate.name();
    }

    @Override
    public int dimensions() {
      return delegate.dimensions();
    }

    @Override
    public float[] embed(String text) {
      return delegate.embed(text);
    }

    @Override
    public List<float[]> embedAll(List<String> texts) {
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      return delegate.embedAll(texts);
    }
  }

  private static SessionService service(SessionStore store) {
    return service(store, new HashEmbedder());
  }

  private static SessionService service(SessionStore store, Embedder embedder) {
    return new SessionService(
        store, embedder, Clock.fixed(NOW, ZoneOffset.UTC), SessionConfig.DEFAULT);
  }

  /** Waits up to 10 s until {@code pending} (postings or vectors still to write) is 0. */
  private static void awaitNone(LongSupplier pending) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (pending.getAsLong() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertEquals(0, pending.getAsLong());
  }

  private static boolean saysNothingOf(List<SessionHit> hits, String word) {
    return hits.stream().noneMatch(h -> h.message().content().contains(word));
  }

  private static List<Float> scores(List<SessionHit> hits) {
    return hits.stream().map(SessionHit::score).toList();
  }
}
