package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.assertStatus;
import static dev.memsidecar.it.Fixtures.ids;
import static dev.memsidecar.it.Fixtures.listAll;
import static dev.memsidecar.it.Fixtures.remember;
import static dev.memsidecar.it.Fixtures.search;
import static dev.memsidecar.it.Fixtures.workspace;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.proto.v1.EditMemoryFileRequest;
import dev.memsidecar.proto.v1.ForgetMemoryRequest;
import dev.memsidecar.proto.v1.GetMemoryRequest;
import dev.memsidecar.proto.v1.ListMemoriesRequest;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.MemoryStatus;
import dev.memsidecar.proto.v1.ReadMemoryFileRequest;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchRequest;
import dev.memsidecar.proto.v1.WriteMemoryFileRequest;
import io.grpc.Status;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The LangMem flags, the per-request {@code memoryWrite} metadata (read-only: no Remember, Forget,
 * file write or edit) and a profile's enabled bit. Memories are written once with everything on;
 * each test then starts a sidecar on a copy of that data with its own configuration.
 */
class TestFlags {
  private static final String TEAM = "team";
  private static final String ARCHIVE = "archive";
  private static final Scope SCOPE = workspace("ws-flags");
  private static final String QUERY = "nightly backups billing database";

  @TempDir static Path seedDir;

  private static Path seedData;
  private static Memory teamMemory;
  private static Memory archiveMemory;

  @TempDir Path testDir;

  @BeforeAll
  static void seedMemoriesWithEverythingOn() {
    Path ws = seedDir.resolve("workspace");
    seedData = seedDir.resolve("data");
    writeProfiles(ws, true);
    try (SidecarProcess sidecar = SidecarProcess.start(ws, "--data", seedData.toString())) {
      teamMemory =
          remember(
              sidecar.memory(),
              SCOPE,
              TEAM,
              "The nightly backups of the billing database " + "finish at 3am");
      archiveMemory =
          remember(
              sidecar.memory(),
              SCOPE,
              ARCHIVE,
              "Archived: the nightly backups of the "
                  + "billing database used to run on the old Postgres replica");
      assertEquals(0, sidecar.terminate(), sidecar::stderrTail);
    }
  }

  @Test
  void langMemWriteFalseDeniesRememberAndForget() {
    try (SidecarProcess sidecar = startWith(true, true, true, false, true)) {
      assertStatus(
          Status.Code.PERMISSION_DENIED,
          () ->
              sidecar
                  .memory()
                  .remember(
                      RememberRequest.newBuilder()
                          .setScope(SCOPE)
                          .setProfile(TEAM)
                          .setContent("Jonas drafts the release notes on Fridays")
                          .build()));
      assertStatus(
          Status.Code.PERMISSION_DENIED,
          () ->
              sidecar
                  .memory()
                  .forgetMemory(
                      ForgetMemoryRequest.newBuilder()
                          .setScope(SCOPE)
                          .setProfile(TEAM)
                          .setId(teamMemory.getId())
                          .build()));

      assertEquals(
          MemoryStatus.MEMORY_STATUS_ACTIVE, get(sidecar, TEAM, teamMemory.getId()).getStatus());
      assertEquals(1, listAll(sidecar.memory(), SCOPE, TEAM, 0, true).size());
    }
  }

  @Test
  void langMemReadFalseHidesMemoriesFromSearchGetAndList() {
    try (SidecarProcess sidecar = startWith(true, true, false, true, true)) {
      assertEquals(
          0,
          sidecar
              .memory()
              .search(SearchRequest.newBuilder().setScope(SCOPE).setQuery(QUERY).build())
              .getHitsCount());
      assertEquals(
          0,
          sidecar
              .memory()
              .search(
                  SearchRequest.newBuilder()
                      .setScope(SCOPE)
                      .setQuery(QUERY)
                      .addProfiles(TEAM)
                      .build())
              .getHitsCount());
      assertStatus(Status.Code.PERMISSION_DENIED, () -> get(sidecar, TEAM, teamMemory.getId()));
      assertStatus(
          Status.Code.PERMISSION_DENIED,
          () ->
              sidecar
                  .memory()
                  .listMemories(
                      ListMemoriesRequest.newBuilder().setScope(SCOPE).setProfile(TEAM).build()));
    }
  }

  @Test
  void memoryWriteFalseMetadataDeniesRememberAndStoresNothing() {
    try (SidecarProcess sidecar = startWith(true, true, true, true, true)) {
      String content = "Kiran benchmarks the search ranking model twice a month";
      assertStatus(
          Status.Code.PERMISSION_DENIED,
          () ->
              sidecar
                  .memory()
                  .remember(
                      RememberRequest.newBuilder()
                          .setScope(SCOPE)
                          .setProfile(TEAM)
                          .setContent(content)
                          .putMetadata("memoryWrite", "false")
                          .build()));

      assertEquals(
          List.of(teamMemory.getId()), ids(listAll(sidecar.memory(), SCOPE, TEAM, 0, true)));
      for (Memory hit : search(sidecar.memory(), SCOPE, "search ranking model benchmarks")) {
        assertFalse(hit.getContent().equals(content), () -> "stored despite memoryWrite=false");
      }
    }
  }

  @Test
  void memoryWriteFalseMetadataDeniesForgetAndFileWritesAndChangesNothing() {
    try (SidecarProcess sidecar = startWith(true, true, true, true, true)) {
      String path = "/memories/" + TEAM + ".md";
      var written =
          sidecar
              .files()
              .writeMemoryFile(
                  WriteMemoryFileRequest.newBuilder()
                      .setScope(SCOPE)
                      .setPath(path)
                      .setContent("# team\nbackups at 3am\n")
                      .build())
              .getFile();

      assertStatus(
          Status.Code.PERMISSION_DENIED,
          () ->
              sidecar
                  .memory()
                  .forgetMemory(
                      ForgetMemoryRequest.newBuilder()
                          .setScope(SCOPE)
                          .setProfile(TEAM)
                          .setId(teamMemory.getId())
                          .putMetadata("memoryWrite", "false")
                          .build()));
      assertStatus(
          Status.Code.PERMISSION_DENIED,
          () ->
              sidecar
                  .files()
                  .writeMemoryFile(
                      WriteMemoryFileRequest.newBuilder()
                          .setScope(SCOPE)
                          .setPath(path)
                          .setContent("# replaced\n")
                          .putMetadata("memoryWrite", "false")
                          .build()));
      assertStatus(
          Status.Code.PERMISSION_DENIED,
          () ->
              sidecar
                  .files()
                  .editMemoryFile(
                      EditMemoryFileRequest.newBuilder()
                          .setScope(SCOPE)
                          .setPath(path)
                          .setOldText("3am")
                          .setNewText("4am")
                          .putMetadata("memoryWrite", "FALSE")
                          .build()));

      assertEquals(
          MemoryStatus.MEMORY_STATUS_ACTIVE, get(sidecar, TEAM, teamMemory.getId()).getStatus());
      var now =
          sidecar
              .files()
              .readMemoryFile(
                  ReadMemoryFileRequest.newBuilder().setScope(SCOPE).setPath(path).build())
              .getFile();
      assertEquals(written.getContent(), now.getContent());
      assertEquals(written.getEtag(), now.getEtag());
      // Reads are not writes: a read-only request may still search.
      assertTrue(ids(search(sidecar.memory(), SCOPE, QUERY)).contains(teamMemory.getId()));
    }
  }

  @Test
  void disabledProfileDeniesRememberAndIsSkippedBySearch() {
    try (SidecarProcess sidecar = startWith(true, true, true, true, false)) {
      assertStatus(
          Status.Code.PERMISSION_DENIED,
          () ->
              sidecar
                  .memory()
                  .remember(
                      RememberRequest.newBuilder()
                          .setScope(SCOPE)
                          .setProfile(ARCHIVE)
                          .setContent("Tariq archives legacy cron jobs")
                          .build()));

      var found = ids(search(sidecar.memory(), SCOPE, QUERY));
      assertTrue(
          found.contains(teamMemory.getId()), () -> "enabled profile not searched: " + found);
      assertFalse(
          found.contains(archiveMemory.getId()), () -> "disabled profile searched: " + found);
    }
  }

  @Test
  void everythingOnFindsBothProfiles() {
    try (SidecarProcess sidecar = startWith(true, true, true, true, true)) {
      var found = ids(search(sidecar.memory(), SCOPE, QUERY));
      assertTrue(found.contains(teamMemory.getId()), found::toString);
      assertTrue(found.contains(archiveMemory.getId()), found::toString);
    }
  }

  private SidecarProcess startWith(
      boolean filesRead,
      boolean filesWrite,
      boolean langRead,
      boolean langWrite,
      boolean archiveEnabled) {
    Path ws = testDir.resolve("workspace");
    Path data = testDir.resolve("data");
    writeProfiles(ws, archiveEnabled);
    Fixtures.writeFlags(ws, filesRead, filesWrite, langRead, langWrite);
    Fixtures.copyTree(seedData, data);
    return SidecarProcess.start(ws, "--data", data.toString());
  }

  private static void writeProfiles(Path ws, boolean archiveEnabled) {
    Fixtures.writeProfile(ws, TEAM, "workspace", true);
    Fixtures.writeProfile(ws, ARCHIVE, "workspace", archiveEnabled);
  }

  private static Memory get(SidecarProcess sidecar, String profile, String id) {
    return sidecar
        .memory()
        .getMemory(
            GetMemoryRequest.newBuilder().setScope(SCOPE).setProfile(profile).setId(id).build())
        .getMemory();
  }
}
