package dev.memsidecar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.util.JsonFormat;
import dev.memsidecar.proto.v1.AppendMessagesRequest;
import dev.memsidecar.proto.v1.ForgetMemoryRequest;
import dev.memsidecar.proto.v1.GetHistoryRequest;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.MemoryServiceGrpc.MemoryServiceBlockingStub;
import dev.memsidecar.proto.v1.Message;
import dev.memsidecar.proto.v1.MessageRole;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.RememberResponse;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchHit;
import dev.memsidecar.proto.v1.WriteMemoryFileRequest;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line's client commands, run as a terminal user runs them (the jar, a process per
 * command) against a running sidecar: what they print, in tables and as JSON, and what their exit
 * codes mean.
 */
class TestCli extends DefaultSidecarTest {
  private static final Duration LIMIT = Duration.ofSeconds(60);

  private static SidecarProcess.Completed cli(Map<String, String> env, String... args) {
    return SidecarProcess.run(env, LIMIT, args);
  }

  private static SidecarProcess.Completed cli(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    if (all.stream().noneMatch(a -> a.startsWith("--target"))) {
      all.add("--target=" + sidecar.host() + ":" + sidecar.port());
    }
    return cli(Map.of(), all.toArray(String[]::new));
  }

  private static SidecarProcess.Completed ok(String... args) {
    SidecarProcess.Completed done = cli(args);
    assertEquals(0, done.exitCode(), done::toString);
    return done;
  }

  @Test
  void rememberSearchListGetAndForgetFromTheTerminal() throws Exception {
    String ws = "--workspace-id=cli-records";
    String stored = ok("remember", ws, "Our", "deploy", "day", "is", "Tuesday.").stdout();
    assertTrue(stored.startsWith("stored "), stored);

    RememberResponse json =
        parse(
            ok("remember", ws, "--json", "The staging database is db-7.").stdout(),
            RememberResponse.newBuilder());
    String id = json.getDecision().getMemory().getId();
    assertTrue(!id.isEmpty(), "a stored memory has an id");

    String table = ok("search", ws, "which", "database", "is", "staging?").stdout();
    assertTrue(table.lines().findFirst().orElseThrow().startsWith("SCORE"), table);
    assertTrue(table.contains("The staging database is db-7."), table);

    List<String> lines = ok("search", ws, "--json", "staging database").stdout().lines().toList();
    SearchHit first = parse(lines.get(0), SearchHit.newBuilder());
    assertEquals(id, first.getMemory().getId());

    assertTrue(ok("list", ws).stdout().contains("Our deploy day is Tuesday."));
    Memory got = parse(ok("get", ws, "--json", id).stdout(), Memory.newBuilder());
    assertEquals("The staging database is db-7.", got.getContent());

    assertEquals("forgotten " + id, ok("forget", ws, id).stdout().strip());
    SidecarProcess.Completed unknown = cli("forget", ws, "no-such-memory");
    assertEquals(3, unknown.exitCode(), unknown::toString);
    assertTrue(ok("list", ws).stdout().lines().noneMatch(l -> l.contains("db-7")));
    assertTrue(ok("list", ws, "--all").stdout().contains("forgotten"));

    SidecarProcess.Completed missing = cli("get", ws, "no-such-memory");
    assertEquals(3, missing.exitCode(), missing::toString);
  }

  @Test
  void rulesArePutCheckedAndDeleted() throws Exception {
    String ws = "--workspace-id=cli-rules";
    String put =
        ok("rules", "put", ws, "--tool", "shell", "Don't use the shell to delete files.").stdout();
    String id = put.strip().split(" ")[1];

    SidecarProcess.Completed deny =
        cli("rules", "check", ws, "--tool", "shell", "--args", "{\"command\": \"rm -rf build\"}");
    assertEquals(6, deny.exitCode(), deny::toString);
    assertTrue(deny.stdout().startsWith("deny"), deny::toString);
    assertTrue(deny.stdout().contains(id), deny::toString);
    ok("rules", "check", ws, "--tool", "shell", "--args", "{\"command\": \"ls -la\"}");

    assertTrue(ok("rules", "list", ws).stdout().contains("Don't use the shell to delete files."));
    ok("rules", "delete", ws, "--tool", "shell", id);
    assertEquals(3, cli("rules", "delete", ws, "--tool", "shell", id).exitCode());
    assertEquals(
        2, cli("rules", "put", ws, "--tool", "shell", "--priority", "urgent", "x").exitCode());
  }

  @Test
  void sessionsAreListedReadAndSearched() throws Exception {
    Scope scope =
        Scope.newBuilder()
            .setWorkspaceId("cli-sessions")
            .setUserId("ana")
            .setSessionId("s1")
            .build();
    sidecar
        .sessions()
        .appendMessages(
            AppendMessagesRequest.newBuilder()
                .setScope(scope)
                .addMessages(
                    message(MessageRole.MESSAGE_ROLE_USER, "Ana", "I adopted a cat named Miso."))
                .addMessages(
                    message(MessageRole.MESSAGE_ROLE_ASSISTANT, "", "Miso is a lovely name!"))
                .build());
    String[] who = {"--workspace-id=cli-sessions", "--user-id=ana"};

    String list = ok(concat(new String[] {"sessions", "list"}, who)).stdout();
    assertTrue(list.lines().anyMatch(l -> l.startsWith("s1") && l.contains(" 2 ")), list);

    String history =
        ok(concat(new String[] {"sessions", "history", "--session-id=s1"}, who)).stdout();
    List<String> rows = history.lines().toList();
    assertTrue(rows.get(1).contains("Ana") && rows.get(1).contains("Miso"), history);
    assertTrue(rows.get(2).contains("assistant"), history);

    String found = ok(concat(new String[] {"sessions", "search", "cat", "name"}, who)).stdout();
    assertTrue(found.contains("s1") && found.contains("Miso"), found);

    SidecarProcess.Completed noSession = cli(concat(new String[] {"sessions", "history"}, who));
    assertEquals(2, noSession.exitCode(), noSession::toString);
    assertTrue(noSession.stderr().contains("--session-id"), noSession::toString);
  }

  @Test
  void maintenanceRunsWhenAsked() throws Exception {
    String ran = ok("maintenance", "run", "housekeeping", "skills").stdout();
    List<String> rows = ran.lines().toList();
    assertEquals(3, rows.size(), ran);
    assertTrue(rows.get(1).startsWith("housekeeping") && rows.get(1).contains(" ok"), ran);
    assertTrue(rows.get(2).startsWith("skills") && rows.get(2).contains(" ok"), ran);
    SidecarProcess.Completed unknown = cli("maintenance", "run", "defrag");
    assertEquals(2, unknown.exitCode(), unknown::toString);
    assertTrue(unknown.stderr().contains("defrag"), unknown::toString);
  }

  @Test
  void exitCodesSayWhatWentWrong() throws Exception {
    int free;
    try (ServerSocket s = new ServerSocket(0)) {
      free = s.getLocalPort();
    }
    SidecarProcess.Completed down =
        cli(Map.of(), "search", "anything", "--target", "127.0.0.1:" + free);
    assertEquals(4, down.exitCode(), down::toString);
    assertTrue(
        down.stderr().contains("cannot reach the sidecar at 127.0.0.1:" + free), down::toString);

    assertEquals(2, cli("search", "x", "--target", "nowhere").exitCode());
    assertEquals(2, cli("remember", "x", "--kind", "cosmic").exitCode());
    SidecarProcess.Completed invalid = cli("remember", "x", "--workspace-id", "bad id!");
    assertEquals(2, invalid.exitCode(), invalid::toString);
    assertTrue(invalid.stderr().contains("workspace_id"), invalid::toString);
  }

  @Test
  void aTokenAndAUnixSocketReachAGuardedSidecar(@TempDir Path dir) throws Exception {
    String token = "cli-test-token-0123456789";
    Path tokenFile = dir.resolve("token");
    Files.writeString(tokenFile, token + "\n");
    Path socket = dir.resolve("m.sock");
    try (SidecarProcess guarded =
        SidecarProcess.start(
            dir.resolve("ws"),
            Map.of("MEMSIDECAR_AUTH_TOKEN", token, "MEMSIDECAR_UNIX_SOCKET", socket.toString()))) {
      String target = "--target=" + guarded.host() + ":" + guarded.port();
      SidecarProcess.Completed refused = cli(Map.of(), "status", target);
      assertEquals(5, refused.exitCode(), refused::toString);
      assertTrue(refused.stderr().contains("--token-file"), refused::toString);

      SidecarProcess.Completed status =
          cli(Map.of(), "status", target, "--token-file", tokenFile.toString());
      assertEquals(0, status.exitCode(), status::toString);
      assertTrue(status.stdout().contains("langmem-sqlite"), status::toString);

      SidecarProcess.Completed viaSocket =
          cli(
              Map.of("MEMSIDECAR_AUTH_TOKEN", token),
              "remember",
              "--unix-socket",
              socket.toString(),
              "Tea, not coffee.");
      assertEquals(0, viaSocket.exitCode(), viaSocket::toString);
    }
  }

  @Test
  void anExportImportedIntoAFreshSidecarExportsTheSameAndImportingTwiceChangesNothing(
      @TempDir Path dir) throws Exception {
    Scope scope = Scope.newBuilder().setWorkspaceId("cli-export").setUserId("ana").build();
    String[] who = {"--workspace-id=cli-export", "--user-id=ana"};
    MemoryServiceBlockingStub memory = sidecar.memory();
    memory.remember(remember(scope, "workspace", "Our deploy day is Tuesday."));
    String tea =
        memory
            .remember(remember(scope, "user", "Ana prefers green tea in the morning."))
            .getDecision()
            .getMemory()
            .getId();
    memory.remember(
        remember(scope, "workspace", "Correction: the deploy day is now Thursday, not Tuesday."));
    memory.forgetMemory(
        ForgetMemoryRequest.newBuilder().setScope(scope).setProfile("user").setId(tea).build());
    ok(concat(new String[] {"rules", "put", "--tool", "email"}, who[0], "Never email Sarah."));
    sidecar
        .sessions()
        .appendMessages(
            AppendMessagesRequest.newBuilder()
                .setScope(scope.toBuilder().setSessionId("s1"))
                .addMessages(message(MessageRole.MESSAGE_ROLE_USER, "Ana", "We moved to Lisbon."))
                .addMessages(
                    message(MessageRole.MESSAGE_ROLE_EVENT, "", "run started").toBuilder()
                        .setContextVisible(false))
                .build());
    sidecar
        .files()
        .writeMemoryFile(
            WriteMemoryFileRequest.newBuilder()
                .setScope(scope)
                .setPath("/memories/workspace.md")
                .setContent("# Notes\n- the build takes 4 minutes\n")
                .build());
    sidecar
        .files()
        .writeMemoryFile(
            WriteMemoryFileRequest.newBuilder()
                .setScope(scope)
                .setPath("/MEMORY.md")
                .setContent("# Team\n- we review on Fridays\n")
                .build());

    Path first = dir.resolve("first.jsonl");
    ok(concat(new String[] {"export", "--out", first.toString()}, who));
    List<String> exported = Files.readAllLines(first);
    assertTrue(
        exported.stream().anyMatch(l -> l.contains("MEMORY_STATUS_SUPERSEDED")),
        exported::toString);
    assertTrue(
        exported.stream().anyMatch(l -> l.contains("MEMORY_STATUS_FORGOTTEN")), exported::toString);
    assertTrue(
        exported.stream().anyMatch(l -> l.contains("\"contextVisible\":false")),
        exported::toString);
    assertTrue(
        exported.stream().anyMatch(l -> l.contains("Never email Sarah.")), exported::toString);
    assertTrue(
        exported.stream().anyMatch(l -> l.contains("the build takes 4 minutes")),
        exported::toString);
    assertTrue(
        exported.stream().anyMatch(l -> l.contains("we review on Fridays")), exported::toString);

    try (SidecarProcess fresh = SidecarProcess.start(dir.resolve("fresh"))) {
      String target = "--target=" + fresh.host() + ":" + fresh.port();
      Path broken = dir.resolve("broken.jsonl");
      Files.writeString(
          broken,
          exported.get(0)
              + "\n{\"message\": {\"role\": \"MESSAGE_ROLE_USER\", \"content\": \"x\"}}\n");
      SidecarProcess.Completed refused =
          cli(Map.of(), concat(new String[] {"import", broken.toString(), target}, who));
      assertEquals(2, refused.exitCode(), refused::toString);
      assertTrue(refused.stderr().contains("items[1].message"), refused::toString);
      assertEquals(
          "",
          ok(concat(new String[] {"export", target}, who)).stdout(),
          "a refused import wrote nothing");

      String[] args = concat(new String[] {"import", first.toString(), target}, who);
      long memories = exported.stream().filter(l -> l.startsWith("{\"memory\"")).count();
      assertEquals(
          "imported " + memories + " memories, 1 tool rules, 2 messages, 2 files",
          ok(args).stdout().strip());
      ok(args);
      Path second = dir.resolve("second.jsonl");
      ok(concat(new String[] {"export", "--out", second.toString(), target}, who));
      assertEquals(
          exported.stream().sorted().toList(),
          Files.readAllLines(second).stream().sorted().toList(),
          "what comes back out is what went in, imported once or twice");
      List<Message> history =
          fresh
              .sessions()
              .getHistory(
                  GetHistoryRequest.newBuilder()
                      .setScope(scope.toBuilder().setSessionId("s1"))
                      .build())
              .getMessagesList();
      assertEquals(
          List.of("We moved to Lisbon."), history.stream().map(Message::getContent).toList());
    }
  }

  private static RememberRequest remember(Scope scope, String profile, String content) {
    return RememberRequest.newBuilder()
        .setScope(scope)
        .setProfile(profile)
        .setContent(content)
        .build();
  }

  private static Message message(MessageRole role, String name, String content) {
    return Message.newBuilder().setRole(role).setName(name).setContent(content).build();
  }

  private static String[] concat(String[] a, String... b) {
    List<String> all = new ArrayList<>(List.of(a));
    all.addAll(List.of(b));
    return all.toArray(String[]::new);
  }

  @SuppressWarnings("unchecked")
  private static <T extends com.google.protobuf.Message> T parse(
      String json, com.google.protobuf.Message.Builder builder) throws Exception {
    JsonFormat.parser().merge(json.strip(), builder);
    return (T) builder.build();
  }
}
