package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.ids;
import static dev.memsidecar.it.Fixtures.listAll;
import static dev.memsidecar.it.Fixtures.remember;
import static dev.memsidecar.it.Fixtures.search;
import static dev.memsidecar.it.Fixtures.user;
import static dev.memsidecar.it.Fixtures.workspace;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.proto.v1.ForgetMemoryRequest;
import dev.memsidecar.proto.v1.GetMemoryRequest;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.MemoryStatus;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the sidecar acknowledged survives {@code kill -9} and a restart on the same workspace. */
class TestDurability {
  private static final Scope TEAM = workspace("ws-durable");
  private static final Scope ALICE = user("ws-durable", "alice");

  @TempDir Path workspaceDir;

  @Test
  void rememberedMemoriesSurviveKillNine() {
    Map<String, Memory> acknowledged = new LinkedHashMap<>();
    Sentences sentences = new Sentences(9);
    Memory last;
    try (SidecarProcess sidecar = SidecarProcess.start(workspaceDir)) {
      for (int i = 0; i < 20; i++) {
        Memory m =
            remember(
                sidecar.memory(),
                RememberRequest.newBuilder()
                    .setScope(TEAM)
                    .setProfile("workspace")
                    .setContent(sentences.next())
                    .setRequestId("dur-" + i)
                    .addTags("durable")
                    .build());
        acknowledged.put(m.getId(), m);
      }
      last =
          remember(
              sidecar.memory(),
              ALICE,
              "user",
              "Alice keeps the spare office keys in " + "the top drawer");
      sidecar.kill9();
    }

    try (SidecarProcess sidecar = SidecarProcess.start(workspaceDir)) {
      for (Memory before : acknowledged.values()) {
        Memory after = get(sidecar, TEAM, "workspace", before.getId());
        assertEquals(before.getContent(), after.getContent());
        assertEquals(before.getNamespace(), after.getNamespace());
        assertEquals(MemoryStatus.MEMORY_STATUS_ACTIVE, after.getStatus());
        assertTrue(after.getTagsList().contains("durable"), after::toString);
      }
      assertEquals(
          acknowledged.keySet(),
          Set.copyOf(ids(listAll(sidecar.memory(), TEAM, "workspace", 7, true))));
      assertEquals(last.getContent(), get(sidecar, ALICE, "user", last.getId()).getContent());
      assertTrue(
          ids(search(sidecar.memory(), ALICE, "spare office keys top drawer"))
              .contains(last.getId()));
    }
  }

  @Test
  void lastRememberBeforeKillNineIsNotLost() {
    List<String> ids = new ArrayList<>();
    Sentences sentences = new Sentences(99);
    for (int round = 0; round < 3; round++) {
      try (SidecarProcess sidecar = SidecarProcess.start(workspaceDir)) {
        assertEquals(
            Set.copyOf(ids),
            Set.copyOf(ids(listAll(sidecar.memory(), TEAM, "workspace", 0, true))),
            "after restart " + round);
        ids.add(remember(sidecar.memory(), TEAM, "workspace", sentences.next()).getId());
        sidecar.kill9();
      }
    }
    try (SidecarProcess sidecar = SidecarProcess.start(workspaceDir)) {
      assertEquals(
          Set.copyOf(ids), Set.copyOf(ids(listAll(sidecar.memory(), TEAM, "workspace", 0, true))));
    }
  }

  @Test
  void forgetSurvivesKillNine() {
    Memory forgotten;
    Memory kept;
    try (SidecarProcess sidecar = SidecarProcess.start(workspaceDir)) {
      forgotten =
          remember(
              sidecar.memory(),
              TEAM,
              "workspace",
              "Nadia demos the feature flag " + "cleanup every Friday afternoon");
      kept =
          remember(
              sidecar.memory(),
              TEAM,
              "workspace",
              "Jonas monitors the Postgres replica " + "during the on-call week");
      assertTrue(
          sidecar
              .memory()
              .forgetMemory(
                  ForgetMemoryRequest.newBuilder()
                      .setScope(TEAM)
                      .setProfile("workspace")
                      .setId(forgotten.getId())
                      .build())
              .getForgotten());
      sidecar.kill9();
    }

    try (SidecarProcess sidecar = SidecarProcess.start(workspaceDir)) {
      assertEquals(
          MemoryStatus.MEMORY_STATUS_FORGOTTEN,
          get(sidecar, TEAM, "workspace", forgotten.getId()).getStatus());
      assertFalse(
          ids(search(sidecar.memory(), TEAM, "feature flag cleanup demos"))
              .contains(forgotten.getId()));
      assertEquals(
          List.of(kept.getId()), ids(listAll(sidecar.memory(), TEAM, "workspace", 0, false)));
    }
  }

  @Test
  void forgetSurvivesGracefulRestart() {
    Memory forgotten;
    try (SidecarProcess sidecar = SidecarProcess.start(workspaceDir)) {
      forgotten =
          remember(
              sidecar.memory(),
              TEAM,
              "workspace",
              "Omar profiles the search " + "ranking model before every release");
      sidecar
          .memory()
          .forgetMemory(
              ForgetMemoryRequest.newBuilder()
                  .setScope(TEAM)
                  .setProfile("workspace")
                  .setId(forgotten.getId())
                  .build());
      assertEquals(0, sidecar.terminate(), sidecar::stderrTail);
    }
    try (SidecarProcess sidecar = SidecarProcess.start(workspaceDir)) {
      assertEquals(
          MemoryStatus.MEMORY_STATUS_FORGOTTEN,
          get(sidecar, TEAM, "workspace", forgotten.getId()).getStatus());
      assertTrue(listAll(sidecar.memory(), TEAM, "workspace", 0, false).isEmpty());
    }
  }

  private static Memory get(SidecarProcess sidecar, Scope scope, String profile, String id) {
    return sidecar
        .memory()
        .getMemory(
            GetMemoryRequest.newBuilder().setScope(scope).setProfile(profile).setId(id).build())
        .getMemory();
  }
}
