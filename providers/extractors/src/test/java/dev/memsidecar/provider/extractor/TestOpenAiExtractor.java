package dev.memsidecar.provider.extractor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import dev.memsidecar.api.ExtractionRequest;
import dev.memsidecar.api.ExtractionRequest.ProfileGuide;
import dev.memsidecar.api.Extractor;
import dev.memsidecar.api.MemoryCandidate;
import dev.memsidecar.api.MemoryCandidate.Owner;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.MemoryKind;
import dev.memsidecar.api.Settings;
import dev.memsidecar.api.SkillDraftRequest;
import dev.memsidecar.api.Validity;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The openai extractor against a local HTTP server that plays the model. */
class TestOpenAiExtractor {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String KEY = "sk-test-0123456789";
  private static final String GOOD =
      """
      [{"content": "The user prefers dark mode.", "kind": "semantic", "owner": "user",
        "profile": "user", "explicit": false, "validity": "long_term", "tags": ["preference"],
        "scores": {"importance": 8, "novelty": 7, "relevance": 9, "credibility": 8,
                   "granularity": 6, "timeliness": 9},
        "reason": "a stated preference"}]\
      """;

  /** One request the model server saw. */
  private record Seen(String path, Map<String, List<String>> headers, JsonNode body) {}

  /** One canned answer: a status and a body, or a chat completion wrapping {@code content}. */
  private record Reply(int status, String body) {}

  private HttpServer server;
  private ExecutorService executor;
  private final List<Seen> seen = new ArrayList<>();
  private final Deque<Reply> replies = new ArrayDeque<>();
  private final CountDownLatch release = new CountDownLatch(1);
  private volatile boolean stall;

  @BeforeEach
  void startModel() throws IOException {
    executor = Executors.newCachedThreadPool();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(executor);
    server.createContext(
        "/",
        exchange -> {
          byte[] in = exchange.getRequestBody().readAllBytes();
          Reply reply;
          synchronized (this) {
            seen.add(
                new Seen(
                    exchange.getRequestURI().getPath(),
                    new HashMap<>(exchange.getRequestHeaders()),
                    JSON.readTree(in)));
            reply = replies.isEmpty() ? new Reply(500, "no reply queued") : replies.poll();
          }
          if (stall) {
            try {
              release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          byte[] out = reply.body().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(reply.status(), out.length);
          try (OutputStream os = exchange.getResponseBody()) {
            os.write(out);
          } catch (IOException e) {
            // the client gave up (timeout test)
          }
        });
    server.start();
  }

  @AfterEach
  void stopModel() {
    release.countDown();
    server.stop(0);
    executor.shutdownNow();
  }

  private void answer(String content) {
    ObjectNode completion = JSON.createObjectNode();
    ObjectNode message = completion.putArray("choices").addObject().putObject("message");
    message.put("role", "assistant");
    message.put("content", content);
    synchronized (this) {
      replies.add(new Reply(200, completion.toString()));
    }
  }

  private String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
  }

  private Extractor open(Map<String, String> extra) {
    Map<String, String> settings =
        new HashMap<>(Map.of("baseUrl", baseUrl(), "model", "qwen2.5:7b"));
    settings.putAll(extra);
    return new OpenAiExtractorProvider(name -> name.equals("TEST_KEY") ? KEY : null)
        .open(new Settings("extractor 'openai'", settings));
  }

  private static ExtractionRequest request() {
    return new ExtractionRequest(
        "run-7",
        "I prefer dark mode.",
        "Noted.",
        List.of(),
        Map.of("timezone", "UTC"),
        List.of(
            new ProfileGuide(
                "user",
                Owner.USER,
                "The user's memory",
                Map.of(MemoryKind.SEMANTIC, "Remember durable preferences.")),
            new ProfileGuide("workspace", Owner.WORKSPACE, "", Map.of())),
        Instant.parse("2024-03-01T12:00:00Z"),
        ZoneOffset.UTC);
  }

  private synchronized List<Seen> seen() {
    return List.copyOf(seen);
  }

  @Test
  void goodJsonBecomesCandidates() {
    answer(GOOD);
    List<MemoryCandidate> got = open(Map.of()).extract(request());
    assertEquals(1, got.size());
    MemoryCandidate c = got.get(0);
    assertEquals("The user prefers dark mode.", c.content());
    assertEquals(MemoryKind.SEMANTIC, c.kind());
    assertEquals(Owner.USER, c.owner());
    assertEquals("user", c.profile());
    assertEquals(Validity.LONG_TERM, c.validity());
    assertEquals(List.of("preference"), c.tags());
    assertEquals(8f, c.scores().importance());
    assertEquals(8.0f, c.scores().weighted());
    assertEquals("model: a stated preference", c.reason());

    Seen s = seen().get(0);
    assertEquals("/v1/chat/completions", s.path());
    assertEquals("qwen2.5:7b", s.body().path("model").asText());
    assertEquals(0.0, s.body().path("temperature").asDouble());
    String system = s.body().path("messages").path(0).path("content").asText();
    assertTrue(system.contains(OpenAiExtractor.SCHEMA), "the schema is in the prompt");
    assertTrue(system.contains("Remember durable preferences."), "the profile prompts are in it");
    assertTrue(system.contains("id \"workspace\", owner workspace"), system);
    String user = s.body().path("messages").path(1).path("content").asText();
    assertTrue(user.contains("I prefer dark mode.") && user.contains("Noted."), user);
    assertNull(s.headers().get("Authorization"), "no key configured, none sent");
  }

  @Test
  void aSkillDraftIsTheModelsMarkdownWithoutItsFence() {
    String skill =
        "---\nname: release-billing\ndescription: \"Release billing.\"\n---\n\n# Steps\n";
    answer("```markdown\n" + skill + "```");
    SkillDraftRequest request =
        new SkillDraftRequest(
            "release-billing",
            "---\nname: release-billing\ndescription: plain\n---\n",
            List.of("To release billing, always run the tests first."));
    assertEquals(java.util.Optional.of(skill), open(Map.of()).draftSkill(request));
    JsonNode messages = seen().get(0).body().path("messages");
    assertEquals(OpenAiExtractor.SKILL_PROMPT, messages.path(0).path("content").asText());
    String user = messages.path(1).path("content").asText();
    assertTrue(user.contains("Skill name: release-billing"), user);
    assertTrue(user.contains("- To release billing, always run the tests first."), user);
    assertTrue(user.contains("description: plain"), user);

    answer("Here is your skill: none.");
    MemoryException e =
        assertThrows(MemoryException.class, () -> open(Map.of()).draftSkill(request));
    assertEquals(MemoryException.Code.UNAVAILABLE, e.code());
    assertTrue(e.getMessage().contains("front matter"), e::getMessage);
  }

  @Test
  void apiKeyFromTheNamedVariableIsSentAsBearer() {
    answer(GOOD);
    open(Map.of("apiKeyEnv", "TEST_KEY")).extract(request());
    assertEquals(List.of("Bearer " + KEY), seen().get(0).headers().get("Authorization"));
  }

  @Test
  void fencedJsonIsRead() {
    answer("```json\n" + GOOD + "\n```");
    assertEquals(1, open(Map.of()).extract(request()).size());
  }

  @Test
  void proseAroundJsonAndAnObjectHoldingTheArrayAreRead() {
    answer(
        "Sure! Here are the memories I found:\n{\"memories\": "
            + GOOD
            + "}\nLet me know if you need more.");
    assertEquals("The user prefers dark mode.", open(Map.of()).extract(request()).get(0).content());
    answer("<think>the user states a preference [maybe]</think>\n" + GOOD);
    assertEquals(1, open(Map.of()).extract(request()).size());
  }

  @Test
  void emptyArrayMeansNothingToRemember() {
    answer("[]");
    assertEquals(List.of(), open(Map.of()).extract(request()));
    assertEquals(1, seen().size(), "no repair for a usable empty answer");
  }

  @Test
  void invalidItemsAreDroppedAndValidOnesKept() {
    answer(
        "["
            + GOOD.strip().substring(1, GOOD.strip().length() - 1)
            + ", {\"content\": \"x\", \"kind\": \"gossip\", \"owner\": \"user\", \"scores\": {}},"
            + " {\"content\": \"The user is 12.\", \"kind\": \"semantic\", \"owner\": \"user\","
            + " \"scores\": {\"importance\": 11, \"novelty\": 7, \"relevance\": 9, \"credibility\":"
            + " 8, \"granularity\": 6, \"timeliness\": 9}}, {\"content\": \"\", \"kind\":"
            + " \"semantic\", \"owner\": \"user\"}]");
    List<MemoryCandidate> got = open(Map.of()).extract(request());
    assertEquals(
        List.of("The user prefers dark mode."),
        got.stream().map(MemoryCandidate::content).toList());
  }

  @Test
  void garbageThenAGoodRepair() {
    answer("I think the user likes dark mode, probably.");
    answer(GOOD);
    List<MemoryCandidate> got = open(Map.of()).extract(request());
    assertEquals(1, got.size());
    List<Seen> requests = seen();
    assertEquals(2, requests.size());
    JsonNode messages = requests.get(1).body().path("messages");
    assertEquals(4, messages.size());
    assertEquals("assistant", messages.path(2).path("role").asText());
    assertEquals(
        "I think the user likes dark mode, probably.", messages.path(2).path("content").asText());
    assertTrue(messages.path(3).path("content").asText().contains("could not be used"));
  }

  @Test
  void garbageTwiceIsUnavailable() {
    answer("no idea");
    answer("{\"still\": \"not it\"}");
    MemoryException e =
        assertThrows(MemoryException.class, () -> open(Map.of()).extract(request()));
    assertEquals(MemoryException.Code.UNAVAILABLE, e.code());
    assertTrue(e.getMessage().contains("not usable after one repair"), e.getMessage());
    assertEquals(2, seen().size(), "exactly one repair attempt");
  }

  @Test
  void timeoutIsUnavailable() {
    stall = true;
    answer(GOOD);
    MemoryException e =
        assertThrows(
            MemoryException.class, () -> open(Map.of("timeout", "200ms")).extract(request()));
    assertEquals(MemoryException.Code.UNAVAILABLE, e.code());
    assertTrue(
        e.getMessage().contains("no answer from") && e.getMessage().contains("200ms"),
        e.getMessage());
  }

  @Test
  void httpErrorIsUnavailableAndNeverShowsTheKey() {
    synchronized (this) {
      replies.add(new Reply(500, "{\"error\": \"bad key " + KEY + "\"}"));
    }
    MemoryException e =
        assertThrows(
            MemoryException.class, () -> open(Map.of("apiKeyEnv", "TEST_KEY")).extract(request()));
    assertEquals(MemoryException.Code.UNAVAILABLE, e.code());
    assertTrue(e.getMessage().contains("HTTP 500"), e.getMessage());
    assertFalse(e.getMessage().contains(KEY), e.getMessage());
    assertTrue(e.getMessage().contains("***"), e.getMessage());
  }

  @Test
  void connectionRefusedIsUnavailable() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Extractor extractor =
        new OpenAiExtractorProvider(name -> null)
            .open(
                new Settings(
                    "extractor 'openai'",
                    Map.of("baseUrl", "http://127.0.0.1:" + port, "model", "m", "timeout", "2s")));
    MemoryException e = assertThrows(MemoryException.class, () -> extractor.extract(request()));
    assertEquals(MemoryException.Code.UNAVAILABLE, e.code());
    assertTrue(
        e.getMessage()
            .contains("cannot connect to http://127.0.0.1:" + port + "/v1/chat/completions"),
        e.getMessage());
  }

  @Test
  void aBaseUrlWithoutV1GetsIt() {
    answer(GOOD);
    Map<String, String> settings =
        Map.of("baseUrl", "http://127.0.0.1:" + server.getAddress().getPort(), "model", "m");
    new OpenAiExtractorProvider(name -> null).open(new Settings("x", settings)).extract(request());
    assertEquals("/v1/chat/completions", seen().get(0).path());
  }

  @Test
  void badSettingsAreRefusedNamingTheSetting() {
    OpenAiExtractorProvider provider = new OpenAiExtractorProvider(name -> null);
    Map<Map<String, String>, String> cases =
        Map.of(
            Map.of("model", "m"), "spec.settings.baseUrl",
            Map.of("baseUrl", "http://localhost:1/v1"), "spec.settings.model",
            Map.of("baseUrl", "ftp://x/v1", "model", "m"), "spec.settings.baseUrl",
            Map.of("baseUrl", "http://localhost:1/v1", "model", "m", "apiKeyEnv", "NOT_SET"),
                "spec.settings.apiKeyEnv",
            Map.of("baseUrl", "http://localhost:1/v1", "model", "m", "timeout", "forever"),
                "spec.settings.timeout",
            Map.of("baseUrl", "http://localhost:1/v1", "model", "m", "temperature", "3"),
                "spec.settings.temperature",
            Map.of("baseUrl", "http://localhost:1/v1", "model", "m", "apiKey", "sk-1"),
                "spec.settings.apiKey");
    cases.forEach(
        (settings, field) -> {
          MemoryException e =
              assertThrows(MemoryException.class, () -> provider.open(new Settings("x", settings)));
          assertEquals(MemoryException.Code.INVALID_ARGUMENT, e.code(), settings.toString());
          assertEquals(field, e.field(), settings.toString());
          assertFalse(e.getMessage().contains("sk-1"), e.getMessage());
        });
  }
}
