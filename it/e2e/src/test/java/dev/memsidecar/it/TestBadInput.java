package dev.memsidecar.it;

import static dev.memsidecar.it.Fixtures.assertStatus;
import static dev.memsidecar.it.Fixtures.listAll;
import static dev.memsidecar.it.Fixtures.remember;
import static dev.memsidecar.it.Fixtures.uniqueId;
import static dev.memsidecar.it.Fixtures.user;
import static dev.memsidecar.it.Fixtures.workspace;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.proto.v1.ForgetMemoryRequest;
import dev.memsidecar.proto.v1.GetMemoryRequest;
import dev.memsidecar.proto.v1.ListMemoriesRequest;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchRequest;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every kind of bad request gets its precise status, names the bad field, and changes nothing. */
class TestBadInput extends DefaultSidecarTest {
  @Test
  void rememberWithoutScopeNamesWorkspaceId() {
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "workspace_id",
        () ->
            memory()
                .remember(
                    RememberRequest.newBuilder()
                        .setContent("Lena drafts the " + "release notes")
                        .build()));
  }

  @Test
  void rememberWithEmptyWorkspaceIdNamesWorkspaceId() {
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "workspace_id",
        () -> remember(memory(), workspace(""), "", "Lena drafts the release notes"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "ws one",
        "ws/one",
        "ws:one",
        "ws\none",
        "wörkspace",
        // 65 characters, one more than allowed
        "a2345678901234567890123456789012345678901234567890123456789012345"
      })
  void rememberWithBadWorkspaceIdNamesWorkspaceId(String workspaceId) {
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "workspace_id",
        () -> remember(memory(), workspace(workspaceId), "", "Lena drafts the release notes"));
  }

  @Test
  void workspaceIdOfSixtyFourCharactersIsAccepted() {
    String id = "a".repeat(60) + "._-9";
    Memory stored = remember(memory(), workspace(id), "", "Lena drafts the release notes");
    assertEquals(id + ":workspace:workspace", stored.getNamespace());
  }

  @Test
  void userProfileWithoutUserIdNamesScopeUserId() {
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "scope.user_id",
        () -> remember(memory(), workspace(uniqueId("ws")), "user", "Alice likes green tea"));
  }

  @Test
  void badUserIdNamesUserId() {
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "user_id",
        () ->
            remember(
                memory(), user(uniqueId("ws"), "al ice"), "user", "Alice likes green " + "tea"));
  }

  @Test
  void searchWithBadUserIdNamesUserId() {
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "user_id",
        () ->
            memory()
                .search(
                    SearchRequest.newBuilder()
                        .setScope(user(uniqueId("ws"), "al ice"))
                        .setQuery("green tea")
                        .build()));
  }

  @Test
  void emptyContentNamesContent() {
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "content",
        () -> remember(memory(), workspace(uniqueId("ws")), "", ""));
  }

  @Test
  void contentOverThirtyTwoKibibytesIsResourceExhausted() {
    // 16,385 two-byte characters: under the limit in chars, over it in UTF-8 bytes.
    String content = "é".repeat(16_385);
    assertTrue(content.getBytes(StandardCharsets.UTF_8).length > 32_768);
    assertStatus(
        Status.Code.RESOURCE_EXHAUSTED,
        () -> remember(memory(), workspace(uniqueId("ws")), "", content));
  }

  @Test
  void contentOfExactlyThirtyTwoKibibytesIsStored() {
    String sentence = "Sven keeps a long runbook for the payment webhook incident drills. ";
    StringBuilder text = new StringBuilder();
    while (text.length() + sentence.length() <= 32_768) {
      text.append(sentence);
    }
    text.append("x".repeat(32_768 - text.length()));
    String content = text.toString();
    assertEquals(32_768, content.getBytes(StandardCharsets.UTF_8).length);
    Memory stored = remember(memory(), workspace(uniqueId("ws")), "", content);
    assertEquals(content, stored.getContent());
  }

  @Test
  void rejectedRemembersStoreNothing() {
    Scope scope = user(uniqueId("ws"), "alice");
    assertStatus(Status.Code.INVALID_ARGUMENT, () -> remember(memory(), scope, "", ""));
    assertStatus(
        Status.Code.RESOURCE_EXHAUSTED, () -> remember(memory(), scope, "", "z".repeat(32_769)));
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        () -> remember(memory(), user(scope.getWorkspaceId(), "al ice"), "user", "A fact"));
    assertStatus(Status.Code.NOT_FOUND, () -> remember(memory(), scope, "nosuch", "A fact"));

    assertTrue(listAll(memory(), scope, "workspace", 0, true).isEmpty());
    assertTrue(listAll(memory(), scope, "user", 0, true).isEmpty());
  }

  @Test
  void negativePageSizeNamesPageSize() {
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "page_size",
        () ->
            memory()
                .listMemories(
                    ListMemoriesRequest.newBuilder()
                        .setScope(workspace(uniqueId("ws")))
                        .setProfile("workspace")
                        .setPageSize(-1)
                        .build()));
  }

  @Test
  void malformedPageTokenNamesPageToken() {
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "page_token",
        () ->
            memory()
                .listMemories(
                    ListMemoriesRequest.newBuilder()
                        .setScope(workspace(uniqueId("ws")))
                        .setProfile("workspace")
                        .setPageToken("not a token!")
                        .build()));
  }

  @ParameterizedTest
  @ValueSource(ints = {-1, 101, 1000})
  void topKOutsideZeroToHundredNamesTopK(int topK) {
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "top_k",
        () ->
            memory()
                .search(
                    SearchRequest.newBuilder()
                        .setScope(workspace(uniqueId("ws")))
                        .setQuery("green tea")
                        .setTopK(topK)
                        .build()));
  }

  @Test
  void topKOfOneHundredIsAccepted() {
    memory()
        .search(
            SearchRequest.newBuilder()
                .setScope(workspace(uniqueId("ws")))
                .setQuery("green tea")
                .setTopK(100)
                .build());
  }

  @Test
  void emptyQueryNamesQuery() {
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "query",
        () ->
            memory()
                .search(SearchRequest.newBuilder().setScope(workspace(uniqueId("ws"))).build()));
  }

  @Test
  void searchWithoutWorkspaceIdNamesWorkspaceId() {
    assertStatus(
        Status.Code.INVALID_ARGUMENT,
        "workspace_id",
        () -> memory().search(SearchRequest.newBuilder().setQuery("green tea").build()));
  }

  @Test
  void rememberToUnknownProfileIsNotFound() {
    assertStatus(
        Status.Code.NOT_FOUND,
        () ->
            remember(
                memory(),
                workspace(uniqueId("ws")),
                "nosuch",
                "Chen tests the Kafka " + "consumer"));
  }

  @Test
  void listOfUnknownProfileIsNotFound() {
    assertStatus(
        Status.Code.NOT_FOUND,
        () ->
            memory()
                .listMemories(
                    ListMemoriesRequest.newBuilder()
                        .setScope(workspace(uniqueId("ws")))
                        .setProfile("nosuch")
                        .build()));
  }

  @Test
  void searchOfUnknownProfileIsNotFound() {
    assertStatus(
        Status.Code.NOT_FOUND,
        () ->
            memory()
                .search(
                    SearchRequest.newBuilder()
                        .setScope(workspace(uniqueId("ws")))
                        .setQuery("green tea")
                        .addProfiles("nosuch")
                        .build()));
  }

  @Test
  void getOfUnknownIdIsNotFound() {
    assertStatus(
        Status.Code.NOT_FOUND,
        () ->
            memory()
                .getMemory(
                    GetMemoryRequest.newBuilder()
                        .setScope(workspace(uniqueId("ws")))
                        .setProfile("workspace")
                        .setId("no-such-memory")
                        .build()));
  }

  @Test
  void forgetOfUnknownIdIsNotFound() {
    assertStatus(
        Status.Code.NOT_FOUND,
        () ->
            memory()
                .forgetMemory(
                    ForgetMemoryRequest.newBuilder()
                        .setScope(workspace(uniqueId("ws")))
                        .setProfile("workspace")
                        .setId("no-such-memory")
                        .build()));
  }
}
