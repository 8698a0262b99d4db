package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.ids;
import static dev.memsidecar.it.Fixtures.listAll;
import static dev.memsidecar.it.Fixtures.uniqueId;
import static dev.memsidecar.it.Fixtures.user;
import static dev.memsidecar.it.Fixtures.workspace;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.RememberResponse;
import dev.memsidecar.proto.v1.Scope;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A Remember retried with the same request_id (AIP-155) stores one memory. */
class TestIdempotency extends DefaultSidecarTest {
  @Test
  void sameRequestIdReturnsTheSameMemoryAndStoresItOnce() {
    Scope scope = workspace(uniqueId("ws"));
    RememberRequest request =
        request(
            scope,
            "workspace",
            "req-1",
            "Emeka refactors the Terraform modules before every release");
    Memory first = remember(request);
    Memory again = remember(request);

    assertEquals(first.getId(), again.getId());
    assertEquals(first.getContent(), again.getContent());
    assertEquals(
        List.of(first.getId()), ids(listAll(sidecar.memory(), scope, "workspace", 0, true)));
  }

  @Test
  void sameRequestIdInTheUserProfileStoresOnce() {
    Scope alice = user(uniqueId("ws"), "alice");
    RememberRequest request =
        request(alice, "user", "req-user-1", "Alice prefers window seats on long flights");
    Memory first = remember(request);
    Memory again = remember(request);

    assertEquals(first.getId(), again.getId());
    assertEquals(1, listAll(sidecar.memory(), alice, "user", 0, true).size());
  }

  @Test
  void retryAfterOtherWritesReturnsTheOriginalMemory() {
    Scope scope = workspace(uniqueId("ws"));
    RememberRequest first =
        request(
            scope, "workspace", "req-a", "Rosa approves vendor contracts ahead of board meetings");
    Memory original = remember(first);
    Memory other =
        remember(
            request(
                scope, "workspace", "req-b", "The mobile login screen needs a dark mode toggle"));
    Memory retried = remember(first);

    assertEquals(original.getId(), retried.getId());
    assertNotEquals(original.getId(), other.getId());
    assertEquals(
        Set.of(original.getId(), other.getId()),
        Set.copyOf(ids(listAll(sidecar.memory(), scope, "workspace", 0, true))));
  }

  @Test
  void distinctRequestIdsStoreDistinctMemories() {
    Scope scope = workspace(uniqueId("ws"));
    Memory one =
        remember(
            request(
                scope,
                "workspace",
                "req-x",
                "Quentin schedules sprint retrospectives every other Thursday"));
    Memory two =
        remember(
            request(
                scope,
                "workspace",
                "req-y",
                "The Postgres replica lags behind during nightly backups"));

    assertNotEquals(one.getId(), two.getId());
    assertEquals(2, listAll(sidecar.memory(), scope, "workspace", 0, true).size());
  }

  @Test
  void sameRequestIdFromAnotherUserNeverReturnsTheirMemory() {
    String ws = uniqueId("ws");
    Memory alices =
        remember(
            request(
                user(ws, "alice"),
                "user",
                "req-shared",
                "Alice keeps her travel receipts in the blue folder"));
    Memory bobs =
        remember(
            request(
                user(ws, "bob"),
                "user",
                "req-shared",
                "Bob books trains instead of flights for trips under four hours"));

    assertNotEquals(alices.getId(), bobs.getId());
    assertEquals(ws + ":user:bob:user", bobs.getNamespace());
    assertEquals(
        "Bob books trains instead of flights for trips under four hours", bobs.getContent());
  }

  private static RememberRequest request(
      Scope scope, String profile, String requestId, String content) {
    return RememberRequest.newBuilder()
        .setScope(scope)
        .setProfile(profile)
        .setRequestId(requestId)
        .setContent(content)
        .build();
  }

  private static Memory remember(RememberRequest request) {
    RememberResponse response = sidecar.memory().remember(request);
    Memory memory = response.getDecision().getMemory();
    assertNotEquals("", memory.getId(), () -> "no memory in " + response);
    return memory;
  }
}
