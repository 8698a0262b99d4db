package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.assertStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.api.Digests;
import dev.memsidecar.proto.v1.BeginRunRequest;
import dev.memsidecar.proto.v1.BeginRunResponse;
import dev.memsidecar.proto.v1.EditMemoryFileRequest;
import dev.memsidecar.proto.v1.MemoryFile;
import dev.memsidecar.proto.v1.PromptSection;
import dev.memsidecar.proto.v1.ReadMemoryFileRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchHit;
import dev.memsidecar.proto.v1.WriteMemoryFileRequest;
import io.grpc.Status;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Curated memory over real gRPC on the built jar (issue 18, part 4): MEMORY.md and USER.md, written
 * through the files API or on disk, frozen into BeginRun's curated section with a content hash that
 * the same run keeps across a file change and a kill -9; a recalled fact the curated section
 * already says is not repeated.
 */
class TestCurated {
  @TempDir Path workspaceDir;

  private static Scope scope(String workspace, String user, String session) {
    return Scope.newBuilder()
        .setWorkspaceId(workspace)
        .setUserId(user)
        .setSessionId(session)
        .build();
  }

  private static BeginRunResponse begin(SidecarProcess s, Scope scope, String runId, String in) {
    return s.memory()
        .beginRun(
            BeginRunRequest.newBuilder().setScope(scope).setRunId(runId).setInput(in).build());
  }

  private static String section(BeginRunResponse r, String id) {
    return r.getSectionsList().stream()
        .filter(s -> s.getId().equals(id))
        .map(PromptSection::getBody)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no section " + id + " in " + r));
  }

  private static MemoryFile write(SidecarProcess s, Scope scope, String path, String content) {
    return s.files()
        .writeMemoryFile(
            WriteMemoryFileRequest.newBuilder()
                .setScope(scope)
                .setPath(path)
                .setContent(content)
                .build())
        .getFile();
  }

  private static MemoryFile read(SidecarProcess s, Scope scope, String path) {
    return s.files()
        .readMemoryFile(ReadMemoryFileRequest.newBuilder().setScope(scope).setPath(path).build())
        .getFile();
  }

  /** USER.md of a user where the sidecar keeps it: under its data folder in the workspace. */
  private Path userFileOnDisk(String workspace, String user) {
    return workspaceDir.resolve(
        Path.of(".memsidecar", "workspaces", workspace, "users", user, "USER.md"));
  }

  @Test
  void theCuratedSnapshotKeepsItsHashForTheSameRunAcrossAFileChangeAndARestart()
      throws IOException {
    Fixtures.writeServerConfig(workspaceDir, "memory:\n  embedder: hash\n");
    Scope alice = scope("acme", "alice", "chat");
    String question = "Which coffee does Alice prefer, and where does she live?";
    BeginRunResponse first;
    try (SidecarProcess one = SidecarProcess.start(workspaceDir)) {
      // MEMORY.md through the files API, USER.md on disk as a person edits it.
      write(one, alice, "/MEMORY.md", "# Team\n- The deploy day is Thursday.\n");
      Path userFile = userFileOnDisk("acme", "alice");
      Files.createDirectories(userFile.getParent());
      Files.writeString(userFile, "- Alice prefers dark roast coffee.\n", StandardCharsets.UTF_8);
      Fixtures.remember(one.memory(), alice, "user", "Alice prefers dark roast coffee");
      Fixtures.remember(one.memory(), alice, "user", "Alice lives in Lyon");

      first = begin(one, alice, "run-1", question);
      String curated = section(first, "curated");
      assertEquals(
          "### MEMORY.md\n# Team\n- The deploy day is Thursday.\n\n"
              + "### USER.md\n- Alice prefers dark roast coffee.",
          curated);
      assertEquals(Digests.sha256Hex(curated, 64), first.getCuratedHash());
      // No fact twice: the recalled fact the curated section says is left out, the other stays.
      String recalled = section(first, "recalled_memory");
      assertFalse(recalled.contains("dark roast"), recalled);
      assertTrue(recalled.contains("Lyon"), recalled);
      for (SearchHit hit : first.getRecalledList()) {
        assertFalse(hit.getMemory().getContent().contains("dark roast"), hit::toString);
      }

      // Both files change during the run: the run keeps what it saw, the next run sees the change.
      one.files()
          .editMemoryFile(
              EditMemoryFileRequest.newBuilder()
                  .setScope(alice)
                  .setPath("/MEMORY.md")
                  .setOldText("Thursday")
                  .setNewText("Friday")
                  .build());
      Files.writeString(
          userFile, "- Alice prefers oat milk in her coffee.\n", StandardCharsets.UTF_8);
      assertEquals(first, begin(one, alice, "run-1", question));
      BeginRunResponse next = begin(one, alice, "run-2", question);
      assertNotEquals(first.getCuratedHash(), next.getCuratedHash());
      assertTrue(section(next, "curated").contains("Friday"), next::toString);
      assertTrue(section(next, "curated").contains("oat milk"), next::toString);
      one.kill9();
    }
    try (SidecarProcess two = SidecarProcess.start(workspaceDir)) {
      BeginRunResponse replayed = begin(two, alice, "run-1", question);
      assertEquals(first.getCuratedHash(), replayed.getCuratedHash());
      assertEquals(first, replayed);
      assertTrue(section(begin(two, alice, "run-3", question), "curated").contains("Friday"));
    }
  }

  @Test
  void curatedFilesAreKeptPerWorkspaceAndUserThroughTheFilesApi() {
    Fixtures.writeServerConfig(workspaceDir, "memory:\n  embedder: hash\n");
    try (SidecarProcess s = SidecarProcess.start(workspaceDir)) {
      Scope alice = scope("acme", "alice", "");
      Scope bob = scope("acme", "bob", "");
      Scope otherWorkspace = scope("globex", "alice", "");
      MemoryFile absent = read(s, alice, "/MEMORY.md");
      assertEquals("", absent.getContent());
      assertEquals("/MEMORY.md", absent.getPath());
      MemoryFile written = write(s, alice, "MEMORY.md", "- We deploy on Thursdays.\n");
      assertEquals("/MEMORY.md", written.getPath());
      assertEquals(written, read(s, bob, "/MEMORY.md"));
      assertEquals("", read(s, otherWorkspace, "/MEMORY.md").getContent());
      write(s, alice, "/USER.md", "- Alice writes in French.\n");
      assertEquals("", read(s, bob, "/USER.md").getContent());
      assertEquals("- Alice writes in French.\n", read(s, alice, "USER.md").getContent());

      assertStatus(
          Status.Code.INVALID_ARGUMENT,
          "scope.user_id",
          () -> read(s, scope("acme", "", ""), "/USER.md"));
      assertStatus(
          Status.Code.ABORTED,
          () ->
              s.files()
                  .writeMemoryFile(
                      WriteMemoryFileRequest.newBuilder()
                          .setScope(alice)
                          .setPath("/MEMORY.md")
                          .setContent("stale")
                          .setEtag("0123456789abcdef")
                          .build()));
      assertStatus(
          Status.Code.PERMISSION_DENIED,
          () ->
              s.files()
                  .writeMemoryFile(
                      WriteMemoryFileRequest.newBuilder()
                          .setScope(alice)
                          .setPath("/MEMORY.md")
                          .setContent("read-only")
                          .putMetadata("memoryWrite", "false")
                          .build()));
      assertEquals(written, read(s, alice, "/MEMORY.md"));
      assertStatus(
          Status.Code.INVALID_ARGUMENT, "path", () -> read(s, alice, "/memories/../MEMORY.md"));
    }
  }
}
