package dev.memsidecar.sidecar;

import static dev.memsidecar.sidecar.ServerUnderTest.profile;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.rpc.BadRequest;
import dev.memsidecar.conformance.InMemoryProvider;
import dev.memsidecar.core.Limits;
import dev.memsidecar.core.config.ScopeKind;
import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.BeginRunRequest;
import dev.memsidecar.proto.v1.EditMemoryFileRequest;
import dev.memsidecar.proto.v1.ForgetMemoryRequest;
import dev.memsidecar.proto.v1.GetMemoryRequest;
import dev.memsidecar.proto.v1.ListToolRulesRequest;
import dev.memsidecar.proto.v1.ListWriteDecisionsRequest;
import dev.memsidecar.proto.v1.MemoryFileServiceGrpc;
import dev.memsidecar.proto.v1.MemoryKind;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.ReadMemoryFileRequest;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchRequest;
import dev.memsidecar.proto.v1.ToolRuleServiceGrpc;
import dev.memsidecar.proto.v1.WriteMemoryFileRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bounds that hold on every RPC, checked before any other work: the kinds of a Search, request
 * metadata wherever a request carries it, profile names, and every scope id sent, also where the
 * call would ignore it. Past one: INVALID_ARGUMENT naming the field, the value quoted short.
 */
class TestRequestBounds {
  private static final Scope ACME = Scope.newBuilder().setWorkspaceId("acme").build();
  private static final String PATH = "/memories/workspace.md";
  private static final String HUGE = "x".repeat(1024 * 1024);

  @TempDir Path data;
  private ServerUnderTest sidecar;
  private MemoryServiceGrpc.MemoryServiceBlockingStub memory;
  private MemoryFileServiceGrpc.MemoryFileServiceBlockingStub files;

  @BeforeEach
  void start() {
    sidecar =
        ServerUnderTest.inProcess(
            data,
            4,
            4,
            profile("workspace", ScopeKind.WORKSPACE, InMemoryProvider.NAME),
            profile("user", ScopeKind.USER, InMemoryProvider.NAME));
    memory = MemoryServiceGrpc.newBlockingStub(sidecar.channel);
    files = MemoryFileServiceGrpc.newBlockingStub(sidecar.channel);
  }

  @AfterEach
  void stop() {
    sidecar.close();
  }

  @Test
  void searchWithMoreKindsThanTheBoundNamesKinds() {
    SearchRequest search = SearchRequest.newBuilder().setScope(ACME).setQuery("tea").build();
    assertInvalid(
        "kinds",
        () ->
            memory.search(
                search.toBuilder()
                    .addAllKinds(
                        Collections.nCopies(Limits.MAX_KINDS + 1, MemoryKind.MEMORY_KIND_SEMANTIC))
                    .build()));
    memory.search(
        search.toBuilder()
            .addAllKinds(Collections.nCopies(Limits.MAX_KINDS, MemoryKind.MEMORY_KIND_SEMANTIC))
            .build());
  }

  @Test
  void metadataPastItsBoundsNamesMetadataOnEveryRpcThatCarriesIt() {
    memory.remember(RememberRequest.newBuilder().setScope(ACME).setContent("Tea at 4").build());
    Map<String, String> tooMany = entries(Limits.MAX_METADATA_ENTRIES + 1);
    Map<String, String> longValue = Map.of("note", "v".repeat(Limits.MAX_METADATA_VALUE_CHARS + 1));
    for (Map<String, String> metadata : List.of(tooMany, longValue)) {
      assertInvalid(
          "metadata",
          () ->
              memory.forgetMemory(
                  ForgetMemoryRequest.newBuilder()
                      .setScope(ACME)
                      .setId("m1")
                      .putAllMetadata(metadata)
                      .build()));
      assertInvalid(
          "metadata",
          () ->
              files.writeMemoryFile(
                  WriteMemoryFileRequest.newBuilder()
                      .setScope(ACME)
                      .setPath(PATH)
                      .setContent("# notes")
                      .putAllMetadata(metadata)
                      .build()));
      assertInvalid(
          "metadata",
          () ->
              files.editMemoryFile(
                  EditMemoryFileRequest.newBuilder()
                      .setScope(ACME)
                      .setPath(PATH)
                      .setOldText("a")
                      .setNewText("b")
                      .putAllMetadata(metadata)
                      .build()));
    }
    // Nothing was written or forgotten.
    assertEquals("", files.readMemoryFile(readFile()).getFile().getContent());
    assertEquals(
        1,
        memory
            .search(SearchRequest.newBuilder().setScope(ACME).setQuery("tea").build())
            .getHitsCount());
    files.writeMemoryFile(
        WriteMemoryFileRequest.newBuilder()
            .setScope(ACME)
            .setPath(PATH)
            .setContent("# notes")
            .putAllMetadata(entries(Limits.MAX_METADATA_ENTRIES))
            .build());
  }

  @Test
  void malformedProfileNameIsInvalidArgumentAndAnUnknownOneNotFound() {
    RememberRequest remember =
        RememberRequest.newBuilder().setScope(ACME).setContent("Tea at 4").build();
    StatusRuntimeException e =
        assertInvalid(
            "profile", () -> memory.remember(remember.toBuilder().setProfile(HUGE).build()));
    assertTrue(
        e.getStatus().getDescription().length() < 300,
        () -> "the name is echoed: " + e.getStatus().getDescription().length() + " characters");
    assertInvalid(
        "profile",
        () ->
            memory.getMemory(
                GetMemoryRequest.newBuilder()
                    .setScope(ACME)
                    .setProfile("no such")
                    .setId("m1")
                    .build()));
    assertInvalid(
        "profiles",
        () ->
            memory.search(
                SearchRequest.newBuilder()
                    .setScope(ACME)
                    .setQuery("tea")
                    .addProfiles(HUGE)
                    .build()));
    StatusRuntimeException unknown =
        assertThrows(
            StatusRuntimeException.class,
            () -> memory.remember(remember.toBuilder().setProfile("nosuch").build()));
    assertEquals(Status.Code.NOT_FOUND, unknown.getStatus().getCode());
  }

  @Test
  void everyScopeIdSentIsCheckedAlsoWhereTheCallIgnoresIt() {
    Scope hugeAgent = ACME.toBuilder().setAgentId(HUGE).build();
    StatusRuntimeException e =
        assertInvalid(
            "scope.agent_id",
            () ->
                memory.remember(
                    RememberRequest.newBuilder().setScope(hugeAgent).setContent("Tea").build()));
    assertTrue(e.getStatus().getDescription().length() < 300, "the id is quoted short");
    assertInvalid(
        "scope.session_id",
        () ->
            memory.search(
                SearchRequest.newBuilder()
                    .setScope(ACME.toBuilder().setSessionId("s 1"))
                    .setQuery("tea")
                    .build()));
    assertInvalid(
        "scope.agent_id",
        () ->
            memory.beginRun(
                BeginRunRequest.newBuilder().setScope(hugeAgent).setInput("hi").build()));
    assertInvalid(
        "scope.user_id",
        () ->
            ToolRuleServiceGrpc.newBlockingStub(sidecar.channel)
                .listToolRules(
                    ListToolRulesRequest.newBuilder()
                        .setScope(ACME.toBuilder().setUserId(HUGE))
                        .build()));
    assertInvalid(
        "scope.user_id",
        () ->
            AdminServiceGrpc.newBlockingStub(sidecar.channel)
                .listWriteDecisions(
                    ListWriteDecisionsRequest.newBuilder()
                        .setScope(ACME.toBuilder().setUserId("a:b"))
                        .build()));
    assertInvalid(
        "scope.session_id",
        () ->
            files.readMemoryFile(
                readFile().toBuilder().setScope(ACME.toBuilder().setSessionId(HUGE)).build()));
    assertEquals(
        0,
        memory
            .search(SearchRequest.newBuilder().setScope(ACME).setQuery("tea").build())
            .getHitsCount(),
        "nothing was remembered");
  }

  private static ReadMemoryFileRequest readFile() {
    return ReadMemoryFileRequest.newBuilder().setScope(ACME).setPath(PATH).build();
  }

  private static Map<String, String> entries(int n) {
    return IntStream.range(0, n).boxed().collect(Collectors.toMap(i -> "k" + i, i -> "v"));
  }

  /** {@code call} fails with INVALID_ARGUMENT whose google.rpc.BadRequest names {@code field}. */
  private static StatusRuntimeException assertInvalid(String field, Executable call) {
    StatusRuntimeException e = assertThrows(StatusRuntimeException.class, call);
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), e.getStatus()::toString);
    com.google.rpc.Status details = StatusProto.fromThrowable(e);
    try {
      assertEquals(
          field,
          details.getDetails(0).unpack(BadRequest.class).getFieldViolations(0).getField(),
          e.getStatus()::toString);
    } catch (com.google.protobuf.InvalidProtocolBufferException bad) {
      throw new AssertionError("the detail is not a google.rpc.BadRequest: " + details, bad);
    }
    return e;
  }
}
