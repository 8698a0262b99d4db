package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.assertStatus;
import static dev.memsidecar.it.Fixtures.writeServerConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Timestamp;
import dev.memsidecar.proto.v1.AppendMessagesRequest;
import dev.memsidecar.proto.v1.BeginRunRequest;
import dev.memsidecar.proto.v1.BeginRunResponse;
import dev.memsidecar.proto.v1.DeleteSessionRequest;
import dev.memsidecar.proto.v1.EndRunRequest;
import dev.memsidecar.proto.v1.GetHistoryRequest;
import dev.memsidecar.proto.v1.GetHistoryResponse;
import dev.memsidecar.proto.v1.GetStatusRequest;
import dev.memsidecar.proto.v1.ListSessionsRequest;
import dev.memsidecar.proto.v1.ListSessionsResponse;
import dev.memsidecar.proto.v1.Message;
import dev.memsidecar.proto.v1.MessageRole;
import dev.memsidecar.proto.v1.MessageToolCall;
import dev.memsidecar.proto.v1.PromptSection;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchSessionsRequest;
import dev.memsidecar.proto.v1.SessionHit;
import dev.memsidecar.proto.v1.SessionInfo;
import dev.memsidecar.proto.v1.SessionServiceGrpc.SessionServiceBlockingStub;
import io.grpc.Status;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SessionService over real gRPC on a real sidecar: append, history paging, English and Chinese
 * search, hidden messages, isolation between users and workspaces, retention, delete, bad input,
 * kill -9; and EndRun keeping every run as evidence that BeginRun blends with recalled facts.
 */
class TestSessions {
  @TempDir Path workspaceDir;

  /** A sidecar on the hash embedder (this is not about the model), with {@code yaml} lines. */
  private SidecarProcess start(String... memoryLines) {
    writeServerConfig(workspaceDir, "memory:\n  embedder: hash\n" + String.join("", memoryLines));
    return SidecarProcess.start(workspaceDir);
  }

  private static Scope scope(String ws, String user, String session) {
    return Scope.newBuilder().setWorkspaceId(ws).setUserId(user).setSessionId(session).build();
  }

  private static Message msg(MessageRole role, String name, String content) {
    return Message.newBuilder().setRole(role).setName(name).setContent(content).build();
  }

  private static Message user(String content) {
    return msg(MessageRole.MESSAGE_ROLE_USER, "Caroline", content);
  }

  private static Message assistant(String content) {
    return msg(MessageRole.MESSAGE_ROLE_ASSISTANT, "", content);
  }

  private static List<Message> append(SessionServiceBlockingStub s, Scope scope, Message... ms) {
    return s.appendMessages(
            AppendMessagesRequest.newBuilder().setScope(scope).addAllMessages(List.of(ms)).build())
        .getMessagesList();
  }

  private static List<SessionHit> search(SessionServiceBlockingStub s, Scope scope, String q) {
    return s.searchSessions(
            SearchSessionsRequest.newBuilder().setScope(scope).setQuery(q).setTopK(10).build())
        .getHitsList();
  }

  private static List<String> contents(List<Message> messages) {
    return messages.stream().map(Message::getContent).toList();
  }

  private static List<String> hitContents(List<SessionHit> hits) {
    return hits.stream().map(h -> h.getMessage().getContent()).toList();
  }

  private static List<Message> history(SessionServiceBlockingStub s, Scope scope) {
    List<Message> all = new ArrayList<>();
    String token = "";
    do {
      GetHistoryResponse page =
          s.getHistory(
              GetHistoryRequest.newBuilder()
                  .setScope(scope)
                  .setPageSize(500)
                  .setPageToken(token)
                  .build());
      all.addAll(0, page.getMessagesList());
      token = page.getNextPageToken();
    } while (!token.isEmpty());
    return all;
  }

  private static Timestamp ts(Instant t) {
    return Timestamp.newBuilder().setSeconds(t.getEpochSecond()).setNanos(t.getNano()).build();
  }

  @Test
  void appendsInOrderAndPagesHistoryNewestFirstWithoutHiddenMessages() {
    try (SidecarProcess sidecar = start()) {
      SessionServiceBlockingStub s = sidecar.sessions();
      Scope chat = scope("ws-hist", "caroline", "chat-1");
      List<Message> stored = new ArrayList<>();
      for (int i = 1; i <= 7; i++) {
        stored.addAll(append(s, chat, user("message number " + i)));
        if (i == 4) {
          stored.addAll(
              append(
                  s,
                  chat,
                  Message.newBuilder()
                      .setRole(MessageRole.MESSAGE_ROLE_EVENT)
                      .setContent("internal: run accepted by the reviewer")
                      .setContextVisible(false)
                      .build()));
        }
      }
      for (int i = 0; i < stored.size(); i++) {
        assertEquals(i + 1, stored.get(i).getSequence(), "consecutive sequence numbers");
        assertFalse(stored.get(i).getId().isEmpty(), "an id is assigned");
        assertEquals("chat-1", stored.get(i).getSessionId());
        assertTrue(stored.get(i).hasTime(), "a time is assigned");
      }

      GetHistoryResponse first =
          s.getHistory(GetHistoryRequest.newBuilder().setScope(chat).setPageSize(3).build());
      assertEquals(
          List.of("message number 5", "message number 6", "message number 7"),
          contents(first.getMessagesList()));
      GetHistoryResponse second =
          s.getHistory(
              GetHistoryRequest.newBuilder()
                  .setScope(chat)
                  .setPageSize(3)
                  .setPageToken(first.getNextPageToken())
                  .build());
      assertEquals(
          List.of("message number 2", "message number 3", "message number 4"),
          contents(second.getMessagesList()),
          "the hidden event is never in history");
      GetHistoryResponse third =
          s.getHistory(
              GetHistoryRequest.newBuilder()
                  .setScope(chat)
                  .setPageSize(3)
                  .setPageToken(second.getNextPageToken())
                  .build());
      assertEquals(List.of("message number 1"), contents(third.getMessagesList()));
      assertEquals("", third.getNextPageToken());
      assertTrue(
          hitContents(search(s, chat, "reviewer accepted")).stream()
              .noneMatch(c -> c.contains("reviewer")),
          "hidden messages are not found");

      // A retried append with the client's ids appends nothing twice.
      Message withId = user("the same message sent twice").toBuilder().setId("client-42").build();
      Message once = append(s, chat, withId).get(0);
      Message twice = append(s, chat, withId).get(0);
      assertEquals(once.getSequence(), twice.getSequence());
      assertEquals(
          1,
          history(s, chat).stream().filter(m -> m.getId().equals("client-42")).count(),
          "one copy");

      // A page token of one session is refused for another.
      assertStatus(
          Status.Code.INVALID_ARGUMENT,
          "page_token",
          () ->
              s.getHistory(
                  GetHistoryRequest.newBuilder()
                      .setScope(scope("ws-hist", "caroline", "chat-2"))
                      .setPageToken(first.getNextPageToken())
                      .build()));

      // Tool calls, usage and metadata come back as sent.
      Message tool =
          Message.newBuilder()
              .setRole(MessageRole.MESSAGE_ROLE_ASSISTANT)
              .setToolCall(
                  MessageToolCall.newBuilder()
                      .setName("calendar.create")
                      .setArguments("{\"day\":\"Friday\"}")
                      .setCallId("call-1"))
              .setRunId("run-9")
              .putMetadata("channel", "web")
              .build();
      Message back = append(s, chat, tool).get(0);
      assertEquals("calendar.create", back.getToolCall().getName());
      assertEquals("{\"day\":\"Friday\"}", back.getToolCall().getArguments());
      assertEquals("web", back.getMetadataOrThrow("channel"));
      assertEquals("run-9", back.getRunId());
    }
  }

  @Test
  void searchRanksEnglishAndChineseWithSnippetsAndFilters() {
    try (SidecarProcess sidecar = start()) {
      SessionServiceBlockingStub s = sidecar.sessions();
      Scope may = scope("ws-search", "mel", "may");
      Scope june = scope("ws-search", "mel", "june");
      Instant t0 = Instant.parse("2023-05-08T13:56:00Z");
      append(
          s,
          may,
          user("Hey Mel! How are you?").toBuilder().setTime(ts(t0)).build(),
          assistant("I went hiking with my kids in the mountains last weekend, it was lovely.")
              .toBuilder()
              .setTime(ts(t0.plusSeconds(60)))
              .build(),
          user("我最喜欢的咖啡店在学校旁边。").toBuilder().setTime(ts(t0.plusSeconds(120))).build());
      append(
          s,
          june,
          user("We are planning another hike in the Rockies next month.").toBuilder()
              .setTime(ts(t0.plus(Duration.ofDays(30))))
              .build(),
          user("Pottery class was fun: I painted a bowl.").toBuilder()
              .setTime(ts(t0.plus(Duration.ofDays(30)).plusSeconds(5)))
              .build());

      List<SessionHit> hiking = search(s, may, "When did she go hiking?");
      assertFalse(hiking.isEmpty());
      assertTrue(
          hitContents(hiking).get(0).contains("hiking")
              || hitContents(hiking).get(0).contains("hike"),
          () -> hitContents(hiking).toString());
      assertTrue(hiking.size() >= 2);
      assertTrue(
          hitContents(hiking.subList(0, 2)).stream().allMatch(c -> c.contains("hik")),
          () -> "both hikes first: " + hitContents(hiking));
      for (SessionHit h : hiking.subList(0, 2)) {
        assertTrue(h.getScore() > 0);
        assertTrue(h.hasTime());
        assertFalse(h.getSnippet().isEmpty());
      }
      assertTrue(
          hiking.stream().anyMatch(h -> h.getSessionId().equals("june")),
          "all the user's sessions are searched, not only scope.session_id");

      List<SessionHit> coffee = search(s, may, "咖啡店");
      assertTrue(coffee.get(0).getMessage().getContent().contains("咖啡"), coffee::toString);

      // Filters: one session, a time range, roles.
      assertEquals(
          List.of("june"),
          s
              .searchSessions(
                  SearchSessionsRequest.newBuilder()
                      .setScope(may)
                      .setQuery("hike hiking")
                      .setSessionId("june")
                      .build())
              .getHitsList()
              .stream()
              .map(SessionHit::getSessionId)
              .distinct()
              .toList());
      List<SessionHit> later =
          s.searchSessions(
                  SearchSessionsRequest.newBuilder()
                      .setScope(may)
                      .setQuery("hike hiking")
                      .setStartTime(ts(t0.plus(Duration.ofDays(1))))
                      .build())
              .getHitsList();
      assertTrue(later.get(0).getMessage().getContent().contains("Rockies"), later::toString);
      for (SessionHit h : later) {
        assertTrue(h.getTime().getSeconds() >= t0.plus(Duration.ofDays(1)).getEpochSecond());
      }
      assertEquals(
          1,
          s.searchSessions(
                  SearchSessionsRequest.newBuilder()
                      .setScope(may)
                      .setQuery("hike hiking")
                      .addRoles(MessageRole.MESSAGE_ROLE_ASSISTANT)
                      .build())
              .getHitsCount());

      // A long message gets a snippet around the matched word.
      String filler = "We talked about many other things that day. ".repeat(20);
      append(s, june, user(filler + "Then the violin recital started at seven. " + filler));
      SessionHit violin = search(s, june, "violin recital").get(0);
      assertTrue(violin.getSnippet().contains("violin"), violin.getSnippet());
      assertTrue(violin.getSnippet().length() < 300, violin.getSnippet());

      // Bad input names the field.
      assertStatus(
          Status.Code.INVALID_ARGUMENT,
          "query",
          () -> s.searchSessions(SearchSessionsRequest.newBuilder().setScope(may).build()));
      assertStatus(
          Status.Code.INVALID_ARGUMENT,
          "top_k",
          () ->
              s.searchSessions(
                  SearchSessionsRequest.newBuilder()
                      .setScope(may)
                      .setQuery("hike")
                      .setTopK(1000)
                      .build()));
      assertStatus(
          Status.Code.INVALID_ARGUMENT,
          "end_time",
          () ->
              s.searchSessions(
                  SearchSessionsRequest.newBuilder()
                      .setScope(may)
                      .setQuery("hike")
                      .setStartTime(ts(t0))
                      .setEndTime(ts(t0.minusSeconds(1)))
                      .build()));
    }
  }

  @Test
  void sessionsAreSealedBetweenUsersAndWorkspaces() {
    try (SidecarProcess sidecar = start()) {
      SessionServiceBlockingStub s = sidecar.sessions();
      Scope alice = scope("ws-iso", "alice", "shared-id");
      Scope bob = scope("ws-iso", "bob", "shared-id");
      Scope otherWs = scope("ws-iso-2", "alice", "shared-id");
      append(s, alice, user("Alice's secret: the vault code is 4471 zebra"));
      append(s, bob, user("Bob likes sailing on the lake"));

      assertEquals(1, search(s, alice, "vault code zebra").size());
      assertTrue(
          hitContents(search(s, bob, "vault code zebra")).stream()
              .noneMatch(c -> c.contains("vault")),
          "user B never finds user A's");
      assertTrue(search(s, otherWs, "vault code zebra").isEmpty(), "nor another workspace");
      assertEquals(1, history(s, alice).size());
      assertEquals(List.of("Bob likes sailing on the lake"), contents(history(s, bob)));
      assertTrue(history(s, otherWs).isEmpty());

      ListSessionsResponse bobs =
          s.listSessions(ListSessionsRequest.newBuilder().setScope(bob).build());
      assertEquals(1, bobs.getSessionsCount());
      assertEquals(1, bobs.getSessions(0).getMessageCount());

      // Bob deletes his "shared-id": Alice's session of the same id stays.
      assertEquals(
          1,
          s.deleteSession(DeleteSessionRequest.newBuilder().setScope(bob).build())
              .getMessagesDeleted());
      assertEquals(1, history(s, alice).size());
      assertTrue(history(s, bob).isEmpty());
      assertTrue(search(s, bob, "sailing lake").isEmpty());
      assertEquals(
          0,
          s.listSessions(ListSessionsRequest.newBuilder().setScope(bob).build())
              .getSessionsCount());
      assertStatus(
          Status.Code.NOT_FOUND,
          () -> s.deleteSession(DeleteSessionRequest.newBuilder().setScope(bob).build()));
    }
  }

  @Test
  void listsSessionsNewestFirstInPages() {
    try (SidecarProcess sidecar = start()) {
      SessionServiceBlockingStub s = sidecar.sessions();
      for (int i = 0; i < 5; i++) {
        append(s, scope("ws-list", "u1", "s" + i), user("hello from session " + i));
      }
      append(s, scope("ws-list", "u1", "s1"), user("s1 again, now the newest"));
      List<String> ids = new ArrayList<>();
      String token = "";
      do {
        ListSessionsResponse page =
            s.listSessions(
                ListSessionsRequest.newBuilder()
                    .setScope(scope("ws-list", "u1", ""))
                    .setPageSize(2)
                    .setPageToken(token)
                    .build());
        assertTrue(page.getSessionsCount() <= 2);
        page.getSessionsList().stream().map(SessionInfo::getSessionId).forEach(ids::add);
        token = page.getNextPageToken();
      } while (!token.isEmpty());
      assertEquals(List.of("s1", "s4", "s3", "s2", "s0"), ids);
    }
  }

  @Test
  void badInputIsRefusedNamingTheField() {
    try (SidecarProcess sidecar = start()) {
      SessionServiceBlockingStub s = sidecar.sessions();
      Scope chat = scope("ws-bad", "u", "c");
      assertStatus(
          Status.Code.INVALID_ARGUMENT,
          "scope.session_id",
          () -> append(s, scope("ws-bad", "u", ""), user("x")));
      assertStatus(
          Status.Code.INVALID_ARGUMENT,
          "messages[1].role",
          () -> append(s, chat, user("ok"), Message.newBuilder().setContent("no role").build()));
      assertStatus(
          Status.Code.INVALID_ARGUMENT,
          "messages[0].content",
          () -> append(s, chat, msg(MessageRole.MESSAGE_ROLE_USER, "", "  ")));
      assertStatus(
          Status.Code.RESOURCE_EXHAUSTED,
          "messages[0].content",
          () -> append(s, chat, user("x".repeat(256 * 1024 + 1))));
      assertStatus(
          Status.Code.INVALID_ARGUMENT,
          "messages",
          () -> {
            AppendMessagesRequest.Builder b = AppendMessagesRequest.newBuilder().setScope(chat);
            for (int i = 0; i < 257; i++) {
              b.addMessages(user("m" + i));
            }
            s.appendMessages(b.build());
          });
      assertStatus(
          Status.Code.PERMISSION_DENIED,
          () ->
              s.appendMessages(
                  AppendMessagesRequest.newBuilder()
                      .setScope(chat)
                      .addMessages(user("read-only"))
                      .putMetadata("memoryWrite", "false")
                      .build()));
      assertTrue(history(s, chat).isEmpty(), "a refused append changes nothing");
    }
  }

  @Test
  void retentionHidesAndDeletesOldMessages() {
    Scope chat = scope("ws-ret", "u", "c");
    Instant now = Instant.now();
    try (SidecarProcess sidecar = start("  sessions:\n    retentionDays: 30\n")) {
      SessionServiceBlockingStub s = sidecar.sessions();
      append(
          s,
          chat,
          user("an old note about the marathon").toBuilder()
              .setTime(ts(now.minus(Duration.ofDays(40))))
              .build(),
          user("a recent note about the marathon").toBuilder()
              .setTime(ts(now.minus(Duration.ofDays(2))))
              .build());
      assertEquals(List.of("a recent note about the marathon"), contents(history(s, chat)));
      assertEquals(
          List.of("a recent note about the marathon"), hitContents(search(s, chat, "marathon")));
    }
    try (SidecarProcess sidecar = start("  sessions:\n    retentionDays: 0\n")) {
      assertEquals(
          2, history(sidecar.sessions(), chat).size(), "without a retention, nothing is hidden");
    }
    writeServerConfig(workspaceDir, "memory:\n  sessions:\n    retentionDays: -1\n");
    SidecarProcess.Completed refused =
        SidecarProcess.run(
            Map.of(),
            Duration.ofSeconds(60),
            "serve",
            "--workspace",
            workspaceDir.toString(),
            "--port",
            "0");
    assertTrue(refused.exitCode() != 0);
    assertTrue(refused.stderr().contains("memory.sessions.retentionDays"), () -> refused.stderr());
  }

  @Test
  void aSearchThatNamesADayFindsWhatWasSaidThatDayFirst() throws Exception {
    try (SidecarProcess sidecar = start()) {
      SessionServiceBlockingStub s = sidecar.sessions();
      // The same words on five days of October 2023 (noon UTC, that day in any zone), each in a
      // session of its own: the same score but for the day a query names.
      List<String> days =
          List.of("2023-10-13", "2023-10-02", "2023-10-20", "2023-10-22", "2023-10-24");
      for (String day : days) {
        append(
            s,
            scope("ws-days", "mel", "s-" + day),
            user("The sunset over the lake was gorgeous.").toBuilder()
                .setTime(ts(Instant.parse(day + "T12:00:00Z")))
                .build());
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (sidecar
                  .admin()
                  .getStatus(GetStatusRequest.getDefaultInstance())
                  .getSessionVectorsPending()
              > 0
          && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      Scope asker = scope("ws-days", "mel", "questions");
      List<SessionHit> undated = search(s, asker, "What did she say about the lake?");
      assertEquals(days.size(), undated.size());
      assertEquals(
          1,
          undated.stream().map(SessionHit::getScore).distinct().count(),
          () -> "the same score on every day: " + undated);
      for (String q :
          List.of(
              "What did she say about the lake on 13 October 2023?",
              "What did she say about the lake on October 13, 2023?",
              "2023年10月13日她说了湖的什么？")) {
        List<SessionHit> hits = search(s, asker, q);
        assertEquals("s-2023-10-13", hits.get(0).getSessionId(), () -> q + ": " + hits);
        assertTrue(hits.get(0).getScore() > hits.get(1).getScore(), q);
      }
    }
  }

  @Test
  void acknowledgedMessagesSurviveKillNine() throws Exception {
    List<Message> acknowledged = new ArrayList<>();
    try (SidecarProcess sidecar = start()) {
      ExecutorService pool = Executors.newFixedThreadPool(4);
      List<Future<List<Message>>> writes = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        Scope chat = scope("ws-crash", "u" + t, "c");
        int writer = t;
        writes.add(
            pool.submit(
                () -> {
                  List<Message> mine = new ArrayList<>();
                  for (int i = 0; i < 25; i++) {
                    mine.addAll(
                        append(
                            sidecar.sessions(),
                            chat,
                            user("writer " + writer + " line " + i + " about kestrels")));
                  }
                  return mine;
                }));
      }
      for (Future<List<Message>> f : writes) {
        acknowledged.addAll(f.get(60, TimeUnit.SECONDS));
      }
      pool.shutdown();
      sidecar.kill9();
    }
    try (SidecarProcess sidecar = start()) {
      for (int t = 0; t < 4; t++) {
        Scope chat = scope("ws-crash", "u" + t, "c");
        List<Message> back = history(sidecar.sessions(), chat);
        int writer = t;
        List<Message> mine =
            acknowledged.stream()
                .filter(m -> m.getContent().startsWith("writer " + writer + " "))
                .toList();
        assertEquals(contents(mine), contents(back));
        assertEquals(
            mine.stream().map(Message::getId).toList(), back.stream().map(Message::getId).toList());
        assertEquals(10, search(sidecar.sessions(), chat, "kestrels").size());
      }
    }
  }

  @Test
  void endRunKeepsEveryTurnAndBeginRunBlendsEvidenceWithinTopK() {
    try (SidecarProcess sidecar = start()) {
      Scope chat = scope("ws-runs", "caroline", "s1");
      String[][] turns = {
        {"Hey Mel! Good to see you!", "Hey Caroline! How have you been?"},
        {"I went to a LGBTQ support group yesterday and it was so powerful.", "That's amazing!"},
        {"The transgender stories there were so inspiring.", "I'm so happy for you."},
        {"Thanks, Mel!", "Anytime."},
      };
      for (int i = 0; i < turns.length; i++) {
        sidecar
            .memory()
            .endRun(
                EndRunRequest.newBuilder()
                    .setScope(chat)
                    .setRunId("turn-" + i)
                    .setInput(turns[i][0])
                    .setOutput(turns[i][1])
                    .putMetadata("user_name", "Caroline")
                    .putMetadata("agent_name", "Melanie")
                    .build());
      }
      // A read-only run and a retried run append nothing.
      sidecar
          .memory()
          .endRun(
              EndRunRequest.newBuilder()
                  .setScope(chat)
                  .setRunId("turn-ro")
                  .setInput("this run is read-only")
                  .putMetadata("memoryWrite", "false")
                  .build());
      sidecar
          .memory()
          .endRun(
              EndRunRequest.newBuilder()
                  .setScope(chat)
                  .setRunId("turn-0")
                  .setInput(turns[0][0])
                  .setOutput(turns[0][1])
                  .build());
      List<Message> kept = history(sidecar.sessions(), chat);
      assertEquals(turns.length * 2, kept.size(), () -> contents(kept).toString());
      assertEquals("Caroline", kept.get(0).getName());
      assertEquals(MessageRole.MESSAGE_ROLE_USER, kept.get(0).getRole());
      assertEquals("Melanie", kept.get(1).getName());
      assertEquals(MessageRole.MESSAGE_ROLE_ASSISTANT, kept.get(1).getRole());
      assertEquals("turn-1", kept.get(2).getRunId());

      // No session id: the documented default session.
      Scope noSession = scope("ws-runs", "caroline", "");
      sidecar
          .memory()
          .endRun(
              EndRunRequest.newBuilder()
                  .setScope(noSession)
                  .setRunId("loose")
                  .setInput("I adopted a greyhound named Biscuit.")
                  .build());
      assertEquals(
          List.of("I adopted a greyhound named Biscuit."),
          contents(history(sidecar.sessions(), scope("ws-runs", "caroline", "default"))));

      int replies = 0;
      for (int topK : List.of(1, 3, 8)) {
        BeginRunResponse begin =
            sidecar
                .memory()
                .beginRun(
                    BeginRunRequest.newBuilder()
                        .setScope(scope("ws-runs", "caroline", "s2"))
                        .setRunId("question-" + topK)
                        .setInput("When did Caroline go to the LGBTQ support group?")
                        .setTopK(topK)
                        .putMetadata("memoryWrite", "false")
                        .build());
        assertTrue(
            begin.getRecalledCount() + begin.getEvidenceCount() <= topK,
            () -> "top_k " + topK + " bounds both: " + begin);
        assertTrue(begin.getRecalledCount() + begin.getEvidenceCount() >= 1);
        String allText =
            begin.getRecalledList().stream()
                    .map(h -> h.getMemory().getContent())
                    .reduce("", String::concat)
                + begin.getEvidenceList().stream()
                    .map(h -> h.getMessage().getContent())
                    .reduce("", String::concat);
        assertTrue(allText.contains("support group"), allText);
        PromptSection evidence =
            begin.getSectionsList().stream()
                .filter(sec -> sec.getId().equals("session_evidence"))
                .findFirst()
                .orElseThrow();
        for (SessionHit h : begin.getEvidenceList()) {
          assertTrue(evidence.getBody().contains(h.getMessage().getContent()), evidence.getBody());
          // A reply carries what it answers: the message just before it, by the other speaker.
          if (h.hasReplyTo()) {
            assertEquals(h.getMessage().getSequence() - 1, h.getReplyTo().getSequence());
            assertNotEquals(h.getMessage().getName(), h.getReplyTo().getName());
            replies++;
          }
          if (h.hasAnsweredBy()) {
            assertTrue(h.getMessage().getContent().contains("?"), h::toString);
            assertEquals(h.getMessage().getSequence() + 1, h.getAnsweredBy().getSequence());
          }
        }
        if (topK == 8) {
          assertTrue(replies > 0, begin::toString);
          assertTrue(evidence.getBody().contains("(in reply to "), evidence.getBody());
          assertTrue(begin.getEvidenceCount() >= 1, begin::toString);
          assertTrue(evidence.getBody().contains("Caroline: "), evidence.getBody());
          // The frozen snapshot: the same run gets the same evidence again.
          BeginRunResponse again =
              sidecar
                  .memory()
                  .beginRun(
                      BeginRunRequest.newBuilder()
                          .setScope(scope("ws-runs", "caroline", "s2"))
                          .setRunId("question-" + topK)
                          .setInput("something else entirely")
                          .setTopK(topK)
                          .build());
          assertEquals(begin.getEvidenceList(), again.getEvidenceList());
          assertEquals(begin.getSnapshotId(), again.getSnapshotId());
        }
      }
    }
  }
}
