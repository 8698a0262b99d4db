package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.remember;
import static dev.memsidecar.it.Fixtures.search;
import static dev.memsidecar.it.Fixtures.uniqueId;
import static dev.memsidecar.it.Fixtures.workspace;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.proto.v1.ForgetMemoryRequest;
import dev.memsidecar.proto.v1.GetStatusRequest;
import dev.memsidecar.proto.v1.GetStatusResponse;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.ProviderInfo;
import dev.memsidecar.proto.v1.Scope;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The same calls over gRPC on one profile per shipped provider, side by side in one sidecar. */
class TestProviders {
  @TempDir static Path workspaceDir;
  private static SidecarProcess sidecar;

  @BeforeAll
  static void start() {
    Fixtures.writeProfile(workspaceDir, "lucene", "workspace", true, "lucene-hnsw");
    Fixtures.writeProfile(workspaceDir, "notes", "workspace", true, "deepagents-files");
    sidecar = SidecarProcess.start(workspaceDir);
  }

  @AfterAll
  static void stop() {
    if (sidecar != null) {
      sidecar.close();
    }
  }

  @ParameterizedTest
  @CsvSource({"workspace, langmem-sqlite", "lucene, lucene-hnsw", "notes, deepagents-files"})
  void rememberSearchForgetInEnglishAndChinese(String profile, String provider) {
    Scope scope = workspace(uniqueId("ws"));
    Memory english =
        remember(sidecar.memory(), scope, profile, "The staging database lives on db-7.internal");
    Memory chinese = remember(sidecar.memory(), scope, profile, "用户喜欢简洁的回答,不要长篇大论");
    for (int i = 0; i < 20; i++) {
      remember(sidecar.memory(), scope, profile, "Distractor note number " + i + " about lunch");
    }
    assertEquals(provider, english.getProvider());
    assertEquals(
        english.getId(),
        search(sidecar.memory(), scope, "staging database", profile).get(0).getId());
    assertEquals(chinese.getId(), search(sidecar.memory(), scope, "简洁的回答", profile).get(0).getId());
    assertTrue(
        sidecar
            .memory()
            .forgetMemory(
                ForgetMemoryRequest.newBuilder()
                    .setScope(scope)
                    .setProfile(profile)
                    .setId(english.getId())
                    .build())
            .getForgotten());
    List<Memory> after = search(sidecar.memory(), scope, "staging database", profile);
    assertFalse(after.stream().anyMatch(m -> m.getId().equals(english.getId())), after::toString);
    // Another workspace sees none of it.
    assertTrue(search(sidecar.memory(), workspace(uniqueId("ws")), "简洁的回答", profile).isEmpty());
  }

  @Test
  void statusDescribesEachProvider() {
    GetStatusResponse status = sidecar.admin().getStatus(GetStatusRequest.getDefaultInstance());
    assertEquals(
        List.of("deepagents-files", "langmem-sqlite", "lucene-hnsw"), status.getProvidersList());
    ProviderInfo files = info(status, "deepagents-files");
    assertEquals(List.of("files", "records"), files.getCapabilitiesList());
    assertEquals(List.of("langmem"), info(status, "langmem-sqlite").getAliasesList());
    // Without the Vector API module (the launcher adds it only with MEMSIDECAR_VECTOR_API=on).
    assertEquals("off", info(status, "lucene-hnsw").getDetailsMap().get("simd"), status::toString);
    assertTrue(
        info(status, "lucene-hnsw").getDetailsMap().get("vectorization").contains("absent"),
        status::toString);
  }

  private static ProviderInfo info(GetStatusResponse status, String name) {
    return status.getProviderInfoList().stream()
        .filter(p -> p.getName().equals(name))
        .findFirst()
        .orElseThrow();
  }
}
