package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.agent;
import static dev.memsidecar.it.Fixtures.assertStatus;
import static dev.memsidecar.it.Fixtures.ids;
import static dev.memsidecar.it.Fixtures.listAll;
import static dev.memsidecar.it.Fixtures.remember;
import static dev.memsidecar.it.Fixtures.search;
import static dev.memsidecar.it.Fixtures.session;
import static dev.memsidecar.it.Fixtures.uniqueId;
import static dev.memsidecar.it.Fixtures.user;
import static dev.memsidecar.it.Fixtures.workspace;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.proto.v1.ForgetMemoryRequest;
import dev.memsidecar.proto.v1.GetMemoryRequest;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.MemoryServiceGrpc.MemoryServiceBlockingStub;
import dev.memsidecar.proto.v1.MemoryStatus;
import dev.memsidecar.proto.v1.Scope;
import io.grpc.Status;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No scope ever sees another scope's memories: users, workspaces, agents and sessions, through
 * Search, GetMemory, ListMemories and ForgetMemory. One sidecar with the default profiles, one with
 * agent and session profiles from {@code config/memory/*.yaml}.
 */
class TestIsolation {
  private static final String AGENT_PROFILE = "agentnotes";
  private static final String SESSION_PROFILE = "sessionnotes";

  @TempDir static Path defaultWorkspace;
  @TempDir static Path scopedWorkspace;

  private static SidecarProcess defaults;
  private static SidecarProcess scoped;

  @BeforeAll
  static void startSidecars() {
    defaults = SidecarProcess.start(defaultWorkspace);
    Fixtures.writeProfile(scopedWorkspace, AGENT_PROFILE, "agent", true);
    Fixtures.writeProfile(scopedWorkspace, SESSION_PROFILE, "session", true);
    scoped = SidecarProcess.start(scopedWorkspace);
  }

  @AfterAll
  static void stopSidecars() {
    if (defaults != null) {
      defaults.close();
    }
    if (scoped != null) {
      scoped.close();
    }
  }

  @Test
  void userMemoriesStayWithTheirUser() {
    String ws = uniqueId("ws");
    Scope alice = user(ws, "alice");
    Scope bob = user(ws, "bob");
    String secret = "Alice keeps her locker code next to the oat milk cappuccinos";
    Memory mine = remember(defaults.memory(), alice, "user", secret);
    Memory bobs =
        remember(defaults.memory(), bob, "user", "Bob prefers green tea in the " + "afternoon");

    assertNeverSees(defaults.memory(), bob, "user", mine, secret);
    assertEquals(List.of(bobs.getId()), ids(listAll(defaults.memory(), bob, "user", 0, true)));
    assertTrue(
        ids(search(defaults.memory(), alice, "locker code oat milk cappuccinos"))
            .contains(mine.getId()));
  }

  @Test
  void workspaceMemoriesStayInTheirWorkspace() {
    Scope one = workspace(uniqueId("ws"));
    Scope two = workspace(uniqueId("ws"));
    String text = "The staging cluster database password rotates every Friday afternoon";
    Memory inOne = remember(defaults.memory(), one, "workspace", text);

    assertNeverSees(defaults.memory(), two, "workspace", inOne, text);
    assertTrue(listAll(defaults.memory(), two, "workspace", 0, true).isEmpty());
  }

  @Test
  void userMemoriesStayInTheirWorkspace() {
    Scope aliceHere = user(uniqueId("ws"), "alice");
    Scope aliceThere = user(uniqueId("ws"), "alice");
    String text = "Alice is allergic to peanuts and hazelnuts";
    Memory here = remember(defaults.memory(), aliceHere, "user", text);

    assertNeverSees(defaults.memory(), aliceThere, "user", here, text);
    assertTrue(listAll(defaults.memory(), aliceThere, "user", 0, true).isEmpty());
  }

  @Test
  void userMemoryIsNotReadableThroughTheWorkspaceProfile() {
    String ws = uniqueId("ws");
    Scope alice = user(ws, "alice");
    String text = "Alice reviews design review comments late in the evening";
    Memory own = remember(defaults.memory(), alice, "user", text);

    assertStatus(
        Status.Code.NOT_FOUND, () -> get(defaults.memory(), alice, "workspace", own.getId()));
    assertTrue(listAll(defaults.memory(), workspace(ws), "workspace", 0, true).isEmpty());
    assertFalse(ids(search(defaults.memory(), workspace(ws), text)).contains(own.getId()));
  }

  @Test
  void agentMemoriesStayWithTheirAgent() {
    String ws = uniqueId("ws");
    Scope planner = agent(ws, "planner");
    Scope coder = agent(ws, "coder");
    String text = "The planner agent splits epics into tasks of at most two days";
    Memory mine = remember(scoped.memory(), planner, AGENT_PROFILE, text);
    assertEquals(ws + ":agent:planner:" + AGENT_PROFILE, mine.getNamespace());

    assertNeverSees(scoped.memory(), coder, AGENT_PROFILE, mine, text);
    assertTrue(listAll(scoped.memory(), coder, AGENT_PROFILE, 0, true).isEmpty());
    assertEquals(
        List.of(mine.getId()), ids(listAll(scoped.memory(), planner, AGENT_PROFILE, 0, false)));
  }

  @Test
  void sessionMemoriesStayInTheirSession() {
    String ws = uniqueId("ws");
    Scope first = session(ws, "s-001");
    Scope second = session(ws, "s-002");
    String text = "In this session the user asked for answers in Portuguese";
    Memory mine = remember(scoped.memory(), first, SESSION_PROFILE, text);
    assertEquals(ws + ":session:s-001:" + SESSION_PROFILE, mine.getNamespace());

    assertNeverSees(scoped.memory(), second, SESSION_PROFILE, mine, text);
    assertTrue(listAll(scoped.memory(), second, SESSION_PROFILE, 0, true).isEmpty());
    assertEquals(
        List.of(mine.getId()), ids(listAll(scoped.memory(), first, SESSION_PROFILE, 0, false)));
  }

  @Test
  void agentProfileWithoutAgentIdIsRejected() {
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "agent_id",
        () ->
            remember(
                scoped.memory(),
                workspace(uniqueId("ws")),
                AGENT_PROFILE,
                "Some note " + "about nightly backups"));
  }

  @Test
  void sessionProfileWithoutSessionIdIsRejected() {
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "session_id",
        () ->
            remember(
                scoped.memory(),
                workspace(uniqueId("ws")),
                SESSION_PROFILE,
                "Some note " + "about nightly backups"));
  }

  /**
   * {@code outsider} cannot find {@code memory} by Search (with the memory's own words), by
   * GetMemory, in ListMemories, nor forget it; afterwards the memory is still active for its owner.
   */
  private static void assertNeverSees(
      MemoryServiceBlockingStub stub, Scope outsider, String profile, Memory memory, String text) {
    for (Memory hit : search(stub, outsider, text)) {
      assertFalse(hit.getId().equals(memory.getId()), () -> "Search leaked " + memory);
      assertFalse(hit.getContent().equals(text), () -> "Search leaked " + hit);
    }
    for (Memory hit : search(stub, outsider, text, profile)) {
      assertFalse(hit.getId().equals(memory.getId()), () -> "Search leaked " + memory);
    }
    assertStatus(Status.Code.NOT_FOUND, () -> get(stub, outsider, profile, memory.getId()));
    assertFalse(
        ids(listAll(stub, outsider, profile, 0, true)).contains(memory.getId()),
        "ListMemories leaked the memory");
    assertStatus(
        Status.Code.NOT_FOUND,
        () ->
            stub.forgetMemory(
                ForgetMemoryRequest.newBuilder()
                    .setScope(outsider)
                    .setProfile(profile)
                    .setId(memory.getId())
                    .build()));
    assertEquals(
        MemoryStatus.MEMORY_STATUS_ACTIVE,
        get(stub, ownerOf(memory), memory.getProfile(), memory.getId()).getStatus(),
        "a foreign ForgetMemory changed the memory");
  }

  /** The scope a memory was written with, read back from its namespace. */
  private static Scope ownerOf(Memory memory) {
    String[] parts = memory.getNamespace().split(":");
    Scope.Builder scope = Scope.newBuilder().setWorkspaceId(parts[0]);
    switch (parts[1]) {
      case "user" -> scope.setUserId(parts[2]);
      case "agent" -> scope.setAgentId(parts[2]);
      case "session" -> scope.setSessionId(parts[2]);
      default -> {}
    }
    return scope.build();
  }

  private static Memory get(
      MemoryServiceBlockingStub stub, Scope scope, String profile, String id) {
    return stub.getMemory(
            GetMemoryRequest.newBuilder().setScope(scope).setProfile(profile).setId(id).build())
        .getMemory();
  }
}
