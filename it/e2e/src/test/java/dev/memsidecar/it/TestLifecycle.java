package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.remember;
import static dev.memsidecar.it.Fixtures.workspace;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.proto.v1.GetMemoryRequest;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Starting, configuring and stopping the process. */
class TestLifecycle {
  private static final Duration RUN_LIMIT = Duration.ofSeconds(60);

  @TempDir Path workspaceDir;

  @Test
  void printsOneListeningLineWithTheChosenPort() {
    try (SidecarProcess sidecar = SidecarProcess.start(workspaceDir)) {
      assertTrue(
          sidecar.port() > 0,
          () -> "port 0 must be replaced by a real port: " + sidecar.listeningLine());
      assertServing(sidecar);
      assertEquals(0, sidecar.terminate(), sidecar::stderrTail);
      List<String> listening =
          sidecar.stdoutLines().stream().filter(l -> l.startsWith("listening on")).toList();
      assertEquals(1, listening.size(), () -> "stdout: " + sidecar.stdoutLines());
    }
  }

  @Test
  void listensOnTheRequestedHost() {
    try (SidecarProcess sidecar = SidecarProcess.start(workspaceDir, "--host", "127.0.0.1")) {
      assertEquals("listening on 127.0.0.1:" + sidecar.port(), sidecar.listeningLine());
      assertServing(sidecar);
    }
  }

  @Test
  void helpMentionsEveryFlagAndExitsZero() {
    SidecarProcess.Completed help = SidecarProcess.run(Map.of(), RUN_LIMIT, "--help");
    assertEquals(0, help.exitCode(), help::toString);
    String text = help.stdout() + help.stderr();
    for (String flag : List.of("serve", "--workspace", "--port", "--host", "--data")) {
      assertTrue(text.contains(flag), () -> "--help should mention " + flag + ":\n" + help);
    }
  }

  @Test
  void sigtermStopsWithExitCodeZero() {
    try (SidecarProcess sidecar = SidecarProcess.start(workspaceDir)) {
      assertServing(sidecar);
      assertEquals(0, sidecar.terminate(), sidecar::stderrTail);
      assertFalse(sidecar.isAlive());
    }
  }

  @Test
  void unknownConfigKeyFailsStartNamingTheKey() {
    Fixtures.writeServerConfig(
        workspaceDir,
        """
        memory:
          LangMem:
            reed: true
            write: true
        """);
    SidecarProcess.Completed run =
        SidecarProcess.run(
            Map.of(), RUN_LIMIT, "serve", "--workspace", workspaceDir.toString(), "--port", "0");
    assertNotEquals(0, run.exitCode(), run::toString);
    assertTrue(
        run.stderr().contains("memory.LangMem.reed"), () -> "stderr should name the key:\n" + run);
    assertFalse(run.stdout().contains("listening on"), run::toString);
  }

  @Test
  void keepsDataUnderTheWorkspaceByDefault() {
    try (SidecarProcess sidecar = SidecarProcess.start(workspaceDir)) {
      remember(sidecar.memory(), workspace("ws-default-data"), "", "Dana archives nightly backups");
      assertEquals(0, sidecar.terminate(), sidecar::stderrTail);
    }
    assertTrue(
        Fixtures.holdsFiles(workspaceDir.resolve(".memsidecar")),
        "data should be under <workspace>/.memsidecar");
  }

  @Test
  void dataFlagPlacesTheDataDir(@TempDir Path dataDir) {
    Path data = dataDir.resolve("flag-data");
    try (SidecarProcess sidecar = SidecarProcess.start(workspaceDir, "--data", data.toString())) {
      remember(sidecar.memory(), workspace("ws-flag-data"), "", "Omar audits vendor contracts");
      assertEquals(0, sidecar.terminate(), sidecar::stderrTail);
    }
    assertTrue(Fixtures.holdsFiles(data), () -> "no data files under " + data);
    assertFalse(
        Files.exists(workspaceDir.resolve(".memsidecar")),
        "with --data nothing should be written to <workspace>/.memsidecar");
  }

  @Test
  void dataEnvironmentVariablePlacesTheDataDir(@TempDir Path dataDir) {
    Path data = dataDir.resolve("env-data");
    try (SidecarProcess sidecar =
        SidecarProcess.start(workspaceDir, Map.of("MEMSIDECAR_DATA", data.toString()))) {
      remember(sidecar.memory(), workspace("ws-env-data"), "", "Priya mentors pairing sessions");
      assertEquals(0, sidecar.terminate(), sidecar::stderrTail);
    }
    assertTrue(Fixtures.holdsFiles(data), () -> "no data files under " + data);
    assertFalse(
        Files.exists(workspaceDir.resolve(".memsidecar")),
        "with MEMSIDECAR_DATA nothing should be written to <workspace>/.memsidecar");
  }

  @Test
  void gracefulRestartKeepsMemories() {
    String id;
    try (SidecarProcess sidecar = SidecarProcess.start(workspaceDir)) {
      id =
          remember(sidecar.memory(), workspace("ws-restart"), "", "Sven patches TLS certificates")
              .getId();
      assertEquals(0, sidecar.terminate(), sidecar::stderrTail);
    }
    try (SidecarProcess sidecar = SidecarProcess.start(workspaceDir)) {
      assertEquals(
          "Sven patches TLS certificates",
          sidecar
              .memory()
              .getMemory(
                  GetMemoryRequest.newBuilder()
                      .setScope(workspace("ws-restart"))
                      .setProfile("workspace")
                      .setId(id)
                      .build())
              .getMemory()
              .getContent());
    }
  }

  @Test
  void aSecondSidecarOnTheSameDataRefusesToStartAndTheFirstKeepsServing(@TempDir Path dataDir) {
    Path data = dataDir.resolve("shared-data");
    try (SidecarProcess first = SidecarProcess.start(workspaceDir, "--data", data.toString())) {
      String id =
          remember(first.memory(), workspace("ws-locked"), "", "Lena rotates the pager").getId();
      SidecarProcess.Completed second =
          SidecarProcess.run(
              Map.of(),
              RUN_LIMIT,
              "serve",
              "--workspace",
              workspaceDir.toString(),
              "--port",
              "0",
              "--data",
              data.toString());
      assertNotEquals(0, second.exitCode(), second::toString);
      assertFalse(second.stdout().contains("listening on"), second::toString);
      assertTrue(
          // H2 says "already in use"; with a shared database the memory files' folder says "in
          // use".
          second.stderr().toLowerCase(Locale.ROOT).contains("in use"),
          () -> "stderr should say the data is in use:\n" + second);
      assertServing(first);
      assertEquals(
          "Lena rotates the pager",
          first
              .memory()
              .getMemory(
                  GetMemoryRequest.newBuilder()
                      .setScope(workspace("ws-locked"))
                      .setProfile("workspace")
                      .setId(id)
                      .build())
              .getMemory()
              .getContent());
    }
  }

  static void assertServing(SidecarProcess sidecar) {
    HealthCheckResponse health =
        sidecar.health().check(HealthCheckRequest.newBuilder().setService("").build());
    assertEquals(HealthCheckResponse.ServingStatus.SERVING, health.getStatus());
  }
}
