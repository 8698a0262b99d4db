package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.assertStatus;
import static dev.memsidecar.it.Fixtures.remember;
import static dev.memsidecar.it.Fixtures.uniqueId;
import static dev.memsidecar.it.Fixtures.user;
import static dev.memsidecar.it.Fixtures.workspace;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.proto.v1.EditMemoryFileRequest;
import dev.memsidecar.proto.v1.ListMemoryFilesRequest;
import dev.memsidecar.proto.v1.MemoryFile;
import dev.memsidecar.proto.v1.MemoryFileServiceGrpc.MemoryFileServiceBlockingStub;
import dev.memsidecar.proto.v1.ReadMemoryFileRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.WriteMemoryFileRequest;
import io.grpc.Status;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * MemoryFileService: /memories/&lt;profile&gt;.md per enabled profile, resolved in the caller's
 * scope, with etags; a deepagents-files profile's records are entries of its file.
 */
class TestMemoryFiles {
  /** sha256("") cut to 16 hex digits: the etag of a file not written yet. */
  private static final String EMPTY_ETAG = "e3b0c44298fc1c14";

  @TempDir static Path workspaceDir;
  private static SidecarProcess sidecar;

  @BeforeAll
  static void start() {
    Fixtures.writeProfile(workspaceDir, "notes", "workspace", true, "deepagents-files");
    Fixtures.writeProfile(workspaceDir, "old", "workspace", false);
    sidecar = SidecarProcess.start(workspaceDir);
  }

  @AfterAll
  static void stop() {
    if (sidecar != null) {
      sidecar.close();
    }
  }

  private static MemoryFileServiceBlockingStub files() {
    return sidecar.files();
  }

  private static MemoryFile read(Scope scope, String path) {
    return files()
        .readMemoryFile(ReadMemoryFileRequest.newBuilder().setScope(scope).setPath(path).build())
        .getFile();
  }

  private static MemoryFile write(Scope scope, String path, String content, String etag) {
    return files()
        .writeMemoryFile(
            WriteMemoryFileRequest.newBuilder()
                .setScope(scope)
                .setPath(path)
                .setContent(content)
                .setEtag(etag)
                .build())
        .getFile();
  }

  @Test
  void listNamesEveryEnabledProfileTheScopeReachesEvenBeforeAWrite() {
    Scope alice = user(uniqueId("ws"), "alice");
    List<MemoryFile> listed =
        files()
            .listMemoryFiles(ListMemoryFilesRequest.newBuilder().setScope(alice).build())
            .getFilesList();
    assertEquals(
        List.of("/memories/workspace.md", "/memories/user.md", "/memories/notes.md"),
        listed.stream().map(MemoryFile::getPath).toList());
    for (MemoryFile f : listed) {
      assertEquals("", f.getContent());
      assertEquals(EMPTY_ETAG, f.getEtag());
    }
    // Without a user id, the user profile's file is out of reach.
    assertEquals(
        2,
        files()
            .listMemoryFiles(
                ListMemoryFilesRequest.newBuilder().setScope(workspace(uniqueId("ws"))).build())
            .getFilesCount());
  }

  @Test
  void writeThenReadRoundTripsWithEtags() {
    Scope ws = workspace(uniqueId("ws"));
    MemoryFile absent = read(ws, "/memories/workspace.md");
    assertEquals("", absent.getContent());
    assertFalse(absent.hasUpdateTime());
    MemoryFile first = write(ws, "/memories/workspace.md", "# Team\n- deploys on Tuesday\n", "");
    assertNotEquals(EMPTY_ETAG, first.getEtag());
    assertTrue(first.hasUpdateTime());
    assertEquals(first, read(ws, "/memories/workspace.md"));
    MemoryFile second =
        write(ws, "/memories/workspace.md", "# Team\n- deploys on Monday\n", first.getEtag());
    assertEquals("# Team\n- deploys on Monday\n", read(ws, "/memories/workspace.md").getContent());
    assertStatus(
        Status.Code.ABORTED,
        () -> write(ws, "/memories/workspace.md", "lost update", first.getEtag()));
    assertEquals(second.getContent(), read(ws, "/memories/workspace.md").getContent());
  }

  @Test
  void editReplacesTheOneOccurrence() {
    Scope ws = workspace(uniqueId("ws"));
    MemoryFile f = write(ws, "/memories/workspace.md", "never email Sarah\nship on Friday\n", "");
    MemoryFile edited =
        files()
            .editMemoryFile(
                EditMemoryFileRequest.newBuilder()
                    .setScope(ws)
                    .setPath("/memories/workspace.md")
                    .setOldText("Friday")
                    .setNewText("Thursday")
                    .setEtag(f.getEtag())
                    .build())
            .getFile();
    assertEquals("never email Sarah\nship on Thursday\n", edited.getContent());
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "old_text",
        () ->
            files()
                .editMemoryFile(
                    EditMemoryFileRequest.newBuilder()
                        .setScope(ws)
                        .setPath("/memories/workspace.md")
                        .setOldText("Saturday")
                        .setNewText("x")
                        .build()));
    assertStatus(
        Status.Code.ABORTED,
        () ->
            files()
                .editMemoryFile(
                    EditMemoryFileRequest.newBuilder()
                        .setScope(ws)
                        .setPath("/memories/workspace.md")
                        .setOldText("Thursday")
                        .setNewText("Monday")
                        .setEtag(f.getEtag())
                        .build()));
  }

  @Test
  void workspaceFileIsSharedInTheWorkspaceAndUserFileIsPerUser() {
    String ws = uniqueId("ws");
    write(user(ws, "alice"), "/memories/workspace.md", "shared", "");
    write(user(ws, "alice"), "/memories/user.md", "alice only", "");
    assertEquals("shared", read(user(ws, "bob"), "/memories/workspace.md").getContent());
    assertEquals("", read(user(ws, "bob"), "/memories/user.md").getContent());
    assertEquals("", read(workspace(uniqueId("ws")), "/memories/workspace.md").getContent());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/memories/../workspace.md",
        "/memories/../../etc/passwd",
        "/etc/passwd",
        "memories/workspace.md",
        "/memories/workspace.txt",
        "/memories/sub/workspace.md",
        "/memories//workspace.md",
        "/memories/.md",
        "/memories/...md",
        "/memories/workspace.md/",
        "\\\\memories\\\\workspace.md",
        ""
      })
  void oddPathsAreInvalidArgument(String path) {
    assertStatus(Status.Code.INVALID_ARGUMENT, "path", () -> read(workspace(uniqueId("ws")), path));
  }

  @Test
  void unknownProfileIsNotFoundAndDisabledIsDenied() {
    Scope ws = workspace(uniqueId("ws"));
    assertStatus(Status.Code.NOT_FOUND, () -> read(ws, "/memories/nosuch.md"));
    assertStatus(Status.Code.PERMISSION_DENIED, () -> write(ws, "/memories/old.md", "x", ""));
  }

  @Test
  void recordsOfADeepagentsFilesProfileAreEntriesOfItsFile() {
    Scope ws = workspace(uniqueId("ws"));
    remember(sidecar.memory(), ws, "notes", "The release gate is npm run check:rules");
    MemoryFile file = read(ws, "/memories/notes.md");
    assertTrue(
        file.getContent().contains("The release gate is npm run check:rules"), file.getContent());
    assertEquals(
        "deepagents-files",
        Fixtures.search(sidecar.memory(), ws, "release gate").get(0).getProvider());
  }

  @Test
  void deepagentsWriteFalseDeniesWriteAndEditButNotRead(@TempDir Path ws) {
    Fixtures.writeFlags(ws, true, false, true, true);
    try (SidecarProcess s = SidecarProcess.start(ws)) {
      Scope scope = workspace("w1");
      assertStatus(
          Status.Code.PERMISSION_DENIED,
          () ->
              s.files()
                  .writeMemoryFile(
                      WriteMemoryFileRequest.newBuilder()
                          .setScope(scope)
                          .setPath("/memories/workspace.md")
                          .setContent("x")
                          .build()));
      assertStatus(
          Status.Code.PERMISSION_DENIED,
          () ->
              s.files()
                  .editMemoryFile(
                      EditMemoryFileRequest.newBuilder()
                          .setScope(scope)
                          .setPath("/memories/workspace.md")
                          .setOldText("a")
                          .setNewText("b")
                          .build()));
      assertEquals(
          "",
          s.files()
              .readMemoryFile(
                  ReadMemoryFileRequest.newBuilder()
                      .setScope(scope)
                      .setPath("/memories/workspace.md")
                      .build())
              .getFile()
              .getContent());
    }
  }

  @Test
  void deepagentsReadFalseDeniesReadAndListsNothing(@TempDir Path ws) {
    Fixtures.writeFlags(ws, false, true, true, true);
    try (SidecarProcess s = SidecarProcess.start(ws)) {
      Scope scope = workspace("w1");
      assertEquals(
          0,
          s.files()
              .listMemoryFiles(ListMemoryFilesRequest.newBuilder().setScope(scope).build())
              .getFilesCount());
      assertStatus(
          Status.Code.PERMISSION_DENIED,
          () ->
              s.files()
                  .readMemoryFile(
                      ReadMemoryFileRequest.newBuilder()
                          .setScope(scope)
                          .setPath("/memories/workspace.md")
                          .build()));
    }
  }

  @Test
  void aWrittenFileSurvivesKill9(@TempDir Path ws) {
    Scope scope = workspace("w1");
    WriteMemoryFileRequest request =
        WriteMemoryFileRequest.newBuilder()
            .setScope(scope)
            .setPath("/memories/workspace.md")
            .setContent("# kept\n- survives kill -9\n")
            .build();
    try (SidecarProcess s = SidecarProcess.start(ws)) {
      s.files().writeMemoryFile(request);
      s.kill9();
    }
    try (SidecarProcess s = SidecarProcess.start(ws)) {
      assertEquals(
          request.getContent(),
          s.files()
              .readMemoryFile(
                  ReadMemoryFileRequest.newBuilder()
                      .setScope(scope)
                      .setPath("/memories/workspace.md")
                      .build())
              .getFile()
              .getContent());
    }
  }
}
