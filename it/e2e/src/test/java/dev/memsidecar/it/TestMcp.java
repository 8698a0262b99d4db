package dev.memsidecar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchRequest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code memsidecar mcp} driven by a real MCP client: the official TypeScript SDK from npm, over
 * stdio, in process on a workspace and as a bridge to a running sidecar. Tools are listed with
 * their JSON schemas, calls answer with the gRPC responses, bad input is an error result naming the
 * field, and what the bridge writes the sidecar has.
 */
class TestMcp {
  /** The client SDK version the test installs (npm). */
  private static final String SDK = "@modelcontextprotocol/sdk@1.32.2";

  @TempDir static Path client;

  @BeforeAll
  static void installTheClient() throws Exception {
    try (InputStream script = TestMcp.class.getResourceAsStream("/mcp/client.mjs")) {
      Files.copy(script, client.resolve("client.mjs"), StandardCopyOption.REPLACE_EXISTING);
    }
    Files.writeString(
        client.resolve("package.json"), "{\"type\": \"module\", \"private\": true}\n");
    run(
        List.of("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", SDK),
        Path.of("npm-install.log"));
  }

  @Test
  void inProcessOnAWorkspace(@TempDir Path ws) throws Exception {
    JsonObject seen = drive("--workspace", ws.toString());
    check(seen);
  }

  @Test
  void aBridgeToARunningSidecar(@TempDir Path ws) throws Exception {
    try (SidecarProcess sidecar = SidecarProcess.start(ws)) {
      JsonObject seen = drive("--target", sidecar.host() + ":" + sidecar.port());
      check(seen);
      assertEquals(
          "Our deploy day is Tuesday.",
          sidecar
              .memory()
              .search(
                  SearchRequest.newBuilder()
                      .setScope(Scope.newBuilder().setWorkspaceId("mcp"))
                      .setQuery("deploy day")
                      .build())
              .getHits(0)
              .getMemory()
              .getContent(),
          "what the MCP client remembered, the sidecar has");
    }
  }

  /**
   * The client configuration the README shows works as written: its {@code args} (the workspace
   * folder aside) start an MCP server the client drives.
   */
  @Test
  void theReadmesClientConfigurationAttaches(@TempDir Path ws) throws Exception {
    String readme =
        Files.readString(
            Path.of(System.getProperty("basedir", "")).resolve("../../README.md"),
            StandardCharsets.UTF_8);
    Matcher block = Pattern.compile("(?s)```json\n(.*?)```").matcher(readme);
    JsonObject server = null;
    while (block.find()) {
      JsonObject json = JsonParser.parseString(block.group(1)).getAsJsonObject();
      if (json.has("mcpServers")) {
        server = json.getAsJsonObject("mcpServers").getAsJsonObject("memory");
      }
    }
    assertTrue(server != null, "the README shows an mcpServers configuration");
    assertTrue(
        server.get("command").getAsString().endsWith("sidecar/bin/memsidecar"), server::toString);
    List<String> args = new ArrayList<>();
    server.getAsJsonArray("args").forEach(a -> args.add(a.getAsString()));
    assertEquals("mcp", args.get(0), server::toString);
    int workspace = args.indexOf("--workspace");
    assertTrue(workspace > 0, "the README's server runs on a workspace: " + args);
    args.set(workspace + 1, ws.toString());
    check(drive(args.subList(1, args.size()).toArray(String[]::new)));
  }

  private static void check(JsonObject seen) {
    assertEquals("memsidecar", seen.getAsJsonObject("server").get("name").getAsString());
    JsonObject tools = seen.getAsJsonObject("tools");
    assertEquals(
        Set.of(
            "remember",
            "recall",
            "forget",
            "session_search",
            "list_tool_rules",
            "put_tool_rule",
            "check_tool_call",
            "begin_run",
            "end_run"),
        tools.keySet());
    assertEquals(
        "content",
        tools.getAsJsonObject("remember").getAsJsonArray("required").get(0).getAsString());

    JsonObject remembered = seen.getAsJsonObject("remembered");
    assertTrue(
        !remembered.has("isError") || !remembered.get("isError").getAsBoolean(),
        remembered::toString);
    assertEquals(
        "WRITE_OUTCOME_STORED",
        remembered
            .getAsJsonObject("structuredContent")
            .getAsJsonObject("decision")
            .get("outcome")
            .getAsString());
    String recalled = seen.getAsJsonObject("recalled").toString();
    assertTrue(recalled.contains("Our deploy day is Tuesday."), recalled);

    JsonObject blank = seen.getAsJsonObject("blank");
    assertTrue(blank.get("isError").getAsBoolean(), blank::toString);
    assertTrue(
        blank.toString().contains("INVALID_ARGUMENT") && blank.toString().contains("query"),
        blank::toString);

    String denied = seen.getAsJsonObject("denied").toString();
    assertTrue(denied.contains("TOOL_CALL_VERDICT_DENY"), denied);
    String begun = seen.getAsJsonObject("begun").toString();
    assertTrue(
        begun.contains("Never email Sarah.") && begun.contains("Our deploy day is Tuesday."),
        begun);
  }

  private static JsonObject drive(String... mcpArgs) throws Exception {
    List<String> command = new ArrayList<>();
    command.add("node");
    command.add(client.resolve("client.mjs").toString());
    command.add(SidecarProcess.java());
    command.add(SidecarProcess.jar().toString());
    command.addAll(List.of(mcpArgs));
    String out = run(command, client.resolve("client-" + System.nanoTime() + ".log"));
    String last =
        out.strip().lines().reduce((a, b) -> b).orElseThrow(() -> new AssertionError("no output"));
    return JsonParser.parseString(last).getAsJsonObject();
  }

  /** Runs {@code command} in the client folder; its stdout, or a failure with its stderr. */
  private static String run(List<String> command, Path log)
      throws IOException, InterruptedException {
    Path err = client.resolve(log.getFileName());
    Process p =
        new ProcessBuilder(command)
            .directory(client.toFile())
            .redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(180, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(command + " did not finish\n" + Files.readString(err));
    }
    assertEquals(0, p.exitValue(), () -> command + " failed:\n" + out + "\n" + readQuietly(err));
    return out;
  }

  private static String readQuietly(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }
}
