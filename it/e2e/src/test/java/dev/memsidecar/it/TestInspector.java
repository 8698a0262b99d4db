package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.memsidecar.proto.v1.Acceptance;
import dev.memsidecar.proto.v1.AppendMessagesRequest;
import dev.memsidecar.proto.v1.EndRunRequest;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.Message;
import dev.memsidecar.proto.v1.MessageRole;
import dev.memsidecar.proto.v1.PutToolRuleRequest;
import dev.memsidecar.proto.v1.RecordAcceptanceRequest;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.ToolCall;
import dev.memsidecar.proto.v1.ToolRule;
import dev.memsidecar.proto.v1.ToolRulePriority;
import io.grpc.Metadata;
import io.grpc.stub.AbstractStub;
import io.grpc.stub.MetadataUtils;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web inspector (issue 19, part 3) on the built jar, seen in Debian's headless Chromium: facts
 * remembered from the CLI and over gRPC, a superseded fact, a tool rule with stats, a session, a
 * skill candidate and live events each appear on their page, and a screenshot of every page is kept
 * in {@code target/inspector-screenshots/}. The JSON API refuses a missing or wrong token, refuses
 * writes unless they are allowed, keeps one user's memories from another's scope, and is not there
 * at all unless turned on; {@code /metrics} keeps working beside it.
 */
class TestInspector {
  private static final String TOKEN = "inspector-e2e-token-0123456789";
  private static final Path SHOTS = Path.of("target", "inspector-screenshots");
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static final List<String> TAUGHT =
      List.of(
          "To release the billing service, always run the integration tests first, then tag the"
              + " release and announce it in the billing channel.",
          "Before shipping billing, make sure the integration tests pass; after that tag the"
              + " release and tell the billing channel.",
          "When we deploy billing, first run the integration tests, then create a release tag and"
              + " post an announcement to the billing channel.");

  @Test
  void aNewcomerSeesWhatWasRememberedOnEveryPage(@TempDir Path ws) throws Exception {
    Fixtures.writeServerConfig(
        ws,
        "server:\n  http:\n    port: 0\n  inspector:\n    enabled: true\n"
            + "memory:\n  embedder: hash\n");
    try (SidecarProcess sidecar =
        SidecarProcess.start(ws, Map.of("MEMSIDECAR_AUTH_TOKEN", TOKEN))) {
      String http = httpAddress(sidecar);
      String workspace = uniqueId("acme");
      String target = sidecar.host() + ":" + sidecar.port();

      // From the CLI, as the README's newcomer does: a fact, then its new value.
      cli(target, "remember", "--workspace-id", workspace, "The deploy day is Tuesday");
      cli(target, "remember", "--workspace-id", workspace, "The deploy day is now Thursday");
      // Over gRPC: one memory each for two users of the workspace.
      Scope alice = Scope.newBuilder().setWorkspaceId(workspace).setUserId("alice").build();
      Scope bob = Scope.newBuilder().setWorkspaceId(workspace).setUserId("bob").build();
      Memory aliceFact = remember(sidecar, alice, "Alice's laptop is a ThinkPad X1 Carbon");
      remember(sidecar, bob, "Bob's locker code is 4471");
      // A tool rule, and a run whose call of that tool failed (the tool's stats).
      Scope admin = Scope.newBuilder().setWorkspaceId(workspace).build();
      authed(sidecar.toolRules())
          .putToolRule(
              PutToolRuleRequest.newBuilder()
                  .setScope(admin)
                  .setRule(
                      ToolRule.newBuilder()
                          .setToolName("send_email")
                          .setRule("Never email Sarah after 6 pm")
                          .setPriority(ToolRulePriority.TOOL_RULE_PRIORITY_CRITICAL))
                  .build());
      authed(sidecar.memory())
          .endRun(
              EndRunRequest.newBuilder()
                  .setScope(alice.toBuilder().setSessionId("mail-1"))
                  .setRunId("mail-run-1")
                  .setInput("Send the weekly report to the team.")
                  .setOutput("The mail server timed out; I will retry later.")
                  .addToolCalls(
                      ToolCall.newBuilder()
                          .setToolName("send_email")
                          .setOk(false)
                          .setErrorCategory("timeout")
                          .setErrorMessage("smtp timed out after 30 s"))
                  .build());
      // A session of Alice's.
      Scope aliceSession = alice.toBuilder().setSessionId("keys-chat").build();
      authed(sidecar.sessions())
          .appendMessages(
              AppendMessagesRequest.newBuilder()
                  .setScope(aliceSession)
                  .addMessages(
                      Message.newBuilder()
                          .setRole(MessageRole.MESSAGE_ROLE_USER)
                          .setName("Alice")
                          .setContent("How do I rotate the staging gateway keys?"))
                  .addMessages(
                      Message.newBuilder()
                          .setRole(MessageRole.MESSAGE_ROLE_ASSISTANT)
                          .setContent("Run rotate-keys.sh, then restart the staging gateway."))
                  .build());
      // A skill candidate: one procedure taught three times and accepted work that used it.
      teachAndWork(sidecar, workspace);

      Files.createDirectories(SHOTS);
      try (Chromium browser = Chromium.start()) {
        String base = "http://" + http + "/inspector/";
        // The token travels in the URL fragment once (never sent to the server); the page keeps
        // it in the tab's sessionStorage and sends it as the Authorization header.
        browser.open(base + "#/workspaces?token=" + TOKEN);
        String text =
            browser.waitForText("the workspace and its users", t -> t.contains(workspace));
        assertTrue(text.contains("alice") && text.contains("bob"), text);
        assertFalse(browser.html().contains(TOKEN), "the token is taken out of the URL");
        shoot(browser, "workspaces");

        browser.open(base + "#/profiles?ws=" + workspace);
        text = browser.waitForText("the profiles", t -> t.contains("langmem-sqlite"));
        assertTrue(text.contains("LangMem.write on"), text);
        shoot(browser, "profiles");

        browser.open(base + "#/memories?ws=" + workspace + "&user=alice");
        text =
            browser.waitForText(
                "the memories",
                t -> t.contains("The deploy day is now Thursday") && t.contains("ThinkPad"));
        assertTrue(text.contains("The deploy day is Tuesday"), text);
        assertTrue(text.contains("SUPERSEDED") && text.contains("superseded by"), text);
        assertFalse(text.contains("locker code"), "Bob's memory in Alice's scope:\n" + text);
        shoot(browser, "memories");

        JsonObject old = onlyMemory(http, workspace, "The deploy day is Tuesday");
        browser.open(base + "#/memory?ws=" + workspace + "&profile=workspace&id=" + id(old));
        text = browser.waitForText("the supersede chain", t -> t.contains("Supersede chain"));
        assertTrue(text.indexOf("The deploy day is Tuesday", text.indexOf("Supersede chain")) > 0);
        assertTrue(
            text.indexOf("The deploy day is now Thursday", text.indexOf("Supersede chain")) > 0,
            text);
        assertTrue(text.contains("replaced by"), text);
        shoot(browser, "memory-chain");

        browser.open(base + "#/decisions?ws=" + workspace);
        text =
            browser.waitForText(
                "the write decisions", t -> t.contains("supersedes") && t.contains("ThinkPad"));
        assertTrue(text.contains("importance") && text.contains("8.0"), text);
        shoot(browser, "decisions");

        browser.open(base + "#/rules?ws=" + workspace);
        text = browser.waitForText("the tool rule", t -> t.contains("Never email Sarah"));
        assertTrue(text.contains("critical"), text);
        assertTrue(text.contains("failures 1") && text.contains("timeout 1"), text);
        shoot(browser, "tool-rules");

        browser.open(base + "#/sessions?ws=" + workspace + "&user=alice&q=rotate%20keys");
        text = browser.waitForText("the session", t -> t.contains("keys-chat"));
        assertTrue(text.contains("rotate"), text);
        shoot(browser, "sessions");

        browser.open(base + "#/session?ws=" + workspace + "&user=alice&session=keys-chat");
        text =
            browser.waitForText(
                "the session's messages", t -> t.contains("restart the staging gateway"));
        assertTrue(text.contains("How do I rotate the staging gateway keys?"), text);
        shoot(browser, "session-history");

        browser.open(base + "#/skills?ws=" + workspace);
        text = browser.waitForText("the skill candidate", t -> t.contains("review required"));
        assertTrue(text.toLowerCase(java.util.Locale.ROOT).contains("billing"), text);
        shoot(browser, "skills");

        browser.open(base + "#/events?ws=" + workspace);
        browser.waitForText("the stream open", t -> t.contains("watching"));
        remember(sidecar, admin, "The staging database is called pg-stage-2");
        text = browser.waitForText("the live event", t -> t.contains("memory.stored"));
        shoot(browser, "events");
      }

      // The JSON API: the token, read-only, isolation, and the metrics beside it.
      String list = "memsidecar.v1.MemoryService/ListMemories";
      String aliceUser =
          "{\"scope\": {\"workspaceId\": \""
              + workspace
              + "\", \"userId\": \"alice\"},"
              + " \"profile\": \"user\"}";
      assertEquals(401, rpc(http, list, aliceUser, null).statusCode());
      assertEquals(401, rpc(http, list, aliceUser, "wrong-token-0123456789").statusCode());
      HttpResponse<String> mine = rpc(http, list, aliceUser, TOKEN);
      assertEquals(200, mine.statusCode(), mine::body);
      assertTrue(mine.body().contains("ThinkPad"), mine::body);
      assertFalse(mine.body().contains("locker code"), mine::body);
      HttpResponse<String> forget =
          rpc(
              http,
              "memsidecar.v1.MemoryService/ForgetMemory",
              "{\"scope\": {\"workspaceId\": \""
                  + workspace
                  + "\", \"userId\": \"alice\"},"
                  + " \"profile\": \"user\", \"id\": \""
                  + aliceFact.getId()
                  + "\"}",
              TOKEN);
      assertEquals(403, forget.statusCode(), forget::body);
      assertTrue(forget.body().contains("server.inspector.writes"), forget::body);
      assertTrue(rpc(http, list, aliceUser, TOKEN).body().contains("MEMORY_STATUS_ACTIVE"));
      HttpResponse<String> notOffered =
          rpc(http, "memsidecar.v1.MemoryService/BeginRun", "{}", TOKEN);
      assertEquals(404, notOffered.statusCode(), notOffered::body);
      HttpResponse<String> badScope = rpc(http, list, "{\"profile\": \"user\"}", TOKEN);
      assertEquals(400, badScope.statusCode(), badScope::body);
      assertTrue(badScope.body().contains("INVALID_ARGUMENT"), badScope::body);
      // The page itself holds no data and loads without the token; its API calls need it.
      assertEquals(200, get(http, "/inspector/", null).statusCode());
      assertEquals(401, get(http, "/inspector/api/info", null).statusCode());
      assertEquals(
          401, get(http, "/inspector/api/events?workspace_id=" + workspace, null).statusCode());
      assertEquals(200, get(http, "/metrics", TOKEN).statusCode());
    }
  }

  @Test
  void theInspectorIsOffUnlessTurnedOnAndWritesOnlyWhenAllowed(@TempDir Path tmp) throws Exception {
    Path off = Files.createDirectories(tmp.resolve("off"));
    try (SidecarProcess sidecar = SidecarProcess.start(off, "--http-port", "0")) {
      String http = httpAddress(sidecar);
      assertEquals(404, get(http, "/inspector/", null).statusCode());
      assertEquals(404, get(http, "/inspector/api/info", null).statusCode());
      assertEquals(404, rpc(http, "memsidecar.v1.AdminService/GetStatus", "{}", null).statusCode());
      assertEquals(200, get(http, "/metrics", null).statusCode());
    }

    Path writable = Files.createDirectories(tmp.resolve("writable"));
    Fixtures.writeServerConfig(
        writable, "server:\n  inspector:\n    writes: true\nmemory:\n  embedder: hash\n");
    try (SidecarProcess sidecar =
        SidecarProcess.start(writable, "--http-port", "0", "--inspector")) {
      String http = httpAddress(sidecar);
      HttpResponse<String> info = get(http, "/inspector/api/info", null);
      assertEquals(200, info.statusCode(), info::body);
      assertTrue(
          JsonParser.parseString(info.body()).getAsJsonObject().get("writes").getAsBoolean());
      Scope scope = Scope.newBuilder().setWorkspaceId("w1").build();
      Memory m =
          Fixtures.remember(sidecar.memory(), scope, "workspace", "The office closes at 7 pm");
      // In the browser: the page says writes are allowed and forgets a memory on request.
      Memory shown =
          Fixtures.remember(sidecar.memory(), scope, "workspace", "The printer is on floor 2");
      try (Chromium browser = Chromium.start()) {
        browser.open(
            "http://" + http + "/inspector/#/memory?ws=w1&profile=workspace&id=" + shown.getId());
        String text = browser.waitForText("the forget button", t -> t.contains("forget"));
        assertTrue(text.contains("writes allowed") && text.contains("ACTIVE"), text);
        assertFalse(text.contains("FORGOTTEN"), text);
        browser.script(
            "window.confirm = () => true;"
                + " [...document.querySelectorAll('button')]"
                + ".find(b => b.textContent === 'forget').click();");
        browser.waitForText("the forgotten memory", t -> t.contains("FORGOTTEN"));
        Files.createDirectories(SHOTS);
        shoot(browser, "memory-forgotten");
      }
      String request =
          "{\"scope\": {\"workspaceId\": \"w1\"}, \"profile\": \"workspace\", \"id\": \""
              + m.getId()
              + "\"}";
      // A form of another site cannot post JSON: a POST must say application/json.
      HttpResponse<String> plain =
          HTTP.send(
              HttpRequest.newBuilder(
                      URI.create(
                          "http://"
                              + http
                              + "/inspector/api/rpc/memsidecar.v1.MemoryService/"
                              + "ForgetMemory"))
                  .header("Content-Type", "text/plain")
                  .POST(HttpRequest.BodyPublishers.ofString(request))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(415, plain.statusCode(), plain::body);
      HttpResponse<String> forgot =
          rpc(http, "memsidecar.v1.MemoryService/ForgetMemory", request, null);
      assertEquals(200, forgot.statusCode(), forgot::body);
      assertTrue(forgot.body().contains("\"forgotten\": true"), forgot::body);
      HttpResponse<String> after =
          rpc(http, "memsidecar.v1.MemoryService/GetMemory", request, null);
      assertTrue(after.body().contains("MEMORY_STATUS_FORGOTTEN"), after::body);
      // Without a token, a page of another site whose name was rebound to 127.0.0.1 gets nothing.
      assertTrue(rawGet(http, "evil.example", "/inspector/api/info").startsWith("HTTP/1.1 403"));
      assertTrue(rawGet(http, "localhost", "/inspector/api/info").startsWith("HTTP/1.1 200"));
    }
  }

  @Test
  void theInspectorWithoutAnHttpPortIsAConfigurationError(@TempDir Path ws) {
    SidecarProcess.Completed run =
        SidecarProcess.run(
            Map.of(),
            Duration.ofSeconds(60),
            "serve",
            "--workspace",
            ws.toString(),
            "--port",
            "0",
            "--inspector");
    assertEquals(2, run.exitCode(), run::toString);
    assertTrue(run.stderr().contains("server.inspector.enabled"), run::toString);
    assertTrue(run.stderr().contains("--http-port"), run::toString);

    Fixtures.writeServerConfig(ws, "server:\n  http: { port: 0 }\n  inspector: { enable: true }\n");
    SidecarProcess.Completed typo =
        SidecarProcess.run(
            Map.of(), Duration.ofSeconds(60), "serve", "--workspace", ws.toString(), "--port", "0");
    assertEquals(2, typo.exitCode(), typo::toString);
    assertTrue(typo.stderr().contains("enable"), typo::toString);
  }

  // ---------------------------------------------------------------- helpers

  private static String httpAddress(SidecarProcess sidecar) {
    return sidecar.stdoutLines().stream()
        .filter(l -> l.startsWith("http on "))
        .findFirst()
        .orElseThrow(() -> new AssertionError(sidecar.stdoutLines().toString()))
        .substring("http on ".length());
  }

  private static <S extends AbstractStub<S>> S authed(S stub) {
    Metadata auth = new Metadata();
    auth.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + TOKEN);
    return stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(auth));
  }

  private static Memory remember(SidecarProcess sidecar, Scope scope, String content) {
    String profile = scope.getUserId().isEmpty() ? "workspace" : "user";
    return authed(sidecar.memory())
        .remember(
            RememberRequest.newBuilder()
                .setScope(scope)
                .setProfile(profile)
                .setContent(content)
                .build())
        .getDecision()
        .getMemory();
  }

  private static void cli(String target, String... args) {
    String[] all = new String[args.length + 1];
    all[0] = args[0];
    all[1] = "--target=" + target;
    System.arraycopy(args, 1, all, 2, args.length - 1);
    SidecarProcess.Completed run =
        SidecarProcess.run(Map.of("MEMSIDECAR_AUTH_TOKEN", TOKEN), Duration.ofSeconds(60), all);
    assertEquals(0, run.exitCode(), run::toString);
  }

  /** The runs and verdicts after which skill learning proposes one candidate (as TestSkills). */
  private static void teachAndWork(SidecarProcess sidecar, String workspace) {
    for (int i = 0; i < TAUGHT.size(); i++) {
      authed(sidecar.memory())
          .endRun(
              EndRunRequest.newBuilder()
                  .setScope(scope(workspace, "carol", "teach-" + i))
                  .setRunId("teach-" + i)
                  .setInput(TAUGHT.get(i))
                  .setOutput("Noted.")
                  .build());
    }
    Scope work = scope(workspace, "carol", "work-1");
    authed(sidecar.memory())
        .endRun(
            EndRunRequest.newBuilder()
                .setScope(work)
                .setRunId("ship-1a")
                .setInput("Release the billing service to production today.")
                .setOutput(
                    "Ran the integration tests, tagged the release and announced it in the"
                        + " billing channel.")
                .addToolCalls(ToolCall.newBuilder().setToolName("ci_run").setOk(true))
                .putMetadata("task_id", "ship-1")
                .build());
    authed(sidecar.learning())
        .recordAcceptance(
            RecordAcceptanceRequest.newBuilder()
                .setScope(work)
                .setTaskId("ship-1")
                .setAcceptance(Acceptance.ACCEPT)
                .setFinalRunId("ship-1a")
                .build());
  }

  private static Scope scope(String workspace, String user, String session) {
    return Scope.newBuilder()
        .setWorkspaceId(workspace)
        .setUserId(user)
        .setSessionId(session)
        .build();
  }

  /** The workspace memory with {@code content}, superseded ones included, through the API. */
  private static JsonObject onlyMemory(String http, String workspace, String content)
      throws Exception {
    HttpResponse<String> r =
        rpc(
            http,
            "memsidecar.v1.MemoryService/ListMemories",
            "{\"scope\": {\"workspaceId\": \""
                + workspace
                + "\"}, \"profile\": \"workspace\","
                + " \"includeInactive\": true}",
            TOKEN);
    assertEquals(200, r.statusCode(), r::body);
    for (var m : JsonParser.parseString(r.body()).getAsJsonObject().getAsJsonArray("memories")) {
      if (m.getAsJsonObject().get("content").getAsString().equals(content)) {
        return m.getAsJsonObject();
      }
    }
    throw new AssertionError("no memory " + content + " in " + r.body());
  }

  private static String id(JsonObject memory) {
    return URLEncoder.encode(memory.get("id").getAsString(), StandardCharsets.UTF_8);
  }

  private static HttpResponse<String> rpc(String http, String method, String json, String token)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://" + http + "/inspector/api/rpc/" + method))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> get(String http, String path, String token) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://" + http + path)).timeout(Duration.ofSeconds(30));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A GET with the {@code Host} header a browser would send for {@code host}. */
  private static String rawGet(String http, String host, String path) throws IOException {
    int colon = http.lastIndexOf(':');
    try (Socket s =
        new Socket(http.substring(0, colon), Integer.parseInt(http.substring(colon + 1)))) {
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      out.write(
          ("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /**
   * Keeps a screenshot of the page as test output and checks it shows something: a PNG of the
   * window's size with more than a handful of colours (text, tables, the header).
   */
  private static void shoot(Chromium browser, String name) throws IOException {
    byte[] png = browser.screenshot();
    Files.write(SHOTS.resolve(name + ".png"), png);
    BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
    assertTrue(image != null, name + ": not a PNG");
    assertTrue(image.getWidth() >= 1000 && image.getHeight() >= 600, name + ": too small");
    Set<Integer> colours = new HashSet<>();
    for (int y = 0; y < image.getHeight(); y += 3) {
      for (int x = 0; x < image.getWidth(); x += 3) {
        colours.add(image.getRGB(x, y));
      }
    }
    assertTrue(colours.size() > 50, name + ": a nearly blank page (" + colours.size() + ")");
  }
}
