package dev.memsidecar.sidecar;

import static dev.memsidecar.sidecar.ServerUnderTest.profile;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.BadRequest;
import dev.memsidecar.conformance.InMemoryProvider;
import dev.memsidecar.core.config.ScopeKind;
import dev.memsidecar.proto.v1.BeginRunRequest;
import dev.memsidecar.proto.v1.CheckToolCallRequest;
import dev.memsidecar.proto.v1.ListMemoriesRequest;
import dev.memsidecar.proto.v1.ListMemoriesResponse;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.ToolRuleServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests that are not valid protobuf, sent as raw bytes over loopback TCP: a precise
 * INVALID_ARGUMENT on every service, never UNKNOWN or INTERNAL, nothing stored, and the server
 * keeps serving.
 */
class TestRequestParsing {
  /** What a lone UTF-16 surrogate (U+D800) becomes when a client encodes it naively. */
  private static final byte[] LONE_SURROGATE = {(byte) 0xED, (byte) 0xA0, (byte) 0x80};

  @TempDir Path data;
  private ServerUnderTest sidecar;

  @BeforeEach
  void start() {
    sidecar =
        ServerUnderTest.loopback(
            data, 4, 4, profile("workspace", ScopeKind.WORKSPACE, InMemoryProvider.NAME));
  }

  @AfterEach
  void stop() {
    sidecar.close();
  }

  @Test
  void aLoneSurrogateInANestedStringIsInvalidArgumentNamingTheField() {
    byte[] request =
        withText(
            RememberRequest.newBuilder()
                .setScope(Scope.newBuilder().setWorkspaceId("w1").setUserId("@@@"))
                .setProfile("workspace")
                .setContent("likes tea")
                .build()
                .toByteArray(),
            "@@@");

    StatusRuntimeException e = call(MemoryServiceGrpc.getRememberMethod(), request);

    assertInvalidArgumentNaming(e, "scope.user_id");
    assertEquals(0, storedIn("w1"), "nothing is stored");
  }

  @Test
  void aLoneSurrogateInATopLevelStringOfARunOrToolRuleCallNamesTheField() {
    byte[] begin =
        withText(
            BeginRunRequest.newBuilder()
                .setScope(Scope.newBuilder().setWorkspaceId("w1"))
                .setRunId("@@@")
                .build()
                .toByteArray(),
            "@@@");
    assertInvalidArgumentNaming(call(MemoryServiceGrpc.getBeginRunMethod(), begin), "run_id");

    byte[] check =
        withText(
            CheckToolCallRequest.newBuilder()
                .setScope(Scope.newBuilder().setWorkspaceId("w1"))
                .setToolName("send_@@@")
                .build()
                .toByteArray(),
            "@@@");
    assertInvalidArgumentNaming(
        call(ToolRuleServiceGrpc.getCheckToolCallMethod(), check), "tool_name");
  }

  @Test
  void bytesThatAreNotAMessageAreInvalidArgumentAndTheServerKeepsServing() {
    byte[] valid =
        RememberRequest.newBuilder()
            .setScope(Scope.newBuilder().setWorkspaceId("w1"))
            .setProfile("workspace")
            .setContent("likes tea")
            .build()
            .toByteArray();
    byte[][] broken = {
      Arrays.copyOf(valid, valid.length - 3), // truncated inside a length-delimited field
      {(byte) 0x0A, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF}, // bad varint
      {(byte) 0x0F}, // field 1 with wire type 7, which does not exist
    };
    for (byte[] request : broken) {
      StatusRuntimeException e = call(MemoryServiceGrpc.getRememberMethod(), request);
      assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), e::toString);
      assertTrue(
          e.getStatus().getDescription().contains("memsidecar.v1.RememberRequest"), e::toString);
    }
    assertEquals(0, storedIn("w1"), "nothing is stored");
    assertEquals(
        HealthCheckResponse.ServingStatus.SERVING,
        HealthGrpc.newBlockingStub(sidecar.channel)
            .check(HealthCheckRequest.getDefaultInstance())
            .getStatus());
  }

  @Test
  void healthAnswersABrokenRequestWithInvalidArgumentToo() {
    StatusRuntimeException e = call(HealthGrpc.getCheckMethod(), new byte[] {(byte) 0x0A, 0x05});
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), e::toString);
  }

  private static void assertInvalidArgumentNaming(StatusRuntimeException e, String field) {
    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), e::toString);
    assertTrue(e.getStatus().getDescription().contains(field), e::toString);
    com.google.rpc.Status details = StatusProto.fromThrowable(e);
    assertNotNull(details, "BadRequest details expected");
    try {
      BadRequest bad = details.getDetails(0).unpack(BadRequest.class);
      assertEquals(field, bad.getFieldViolations(0).getField());
    } catch (InvalidProtocolBufferException x) {
      throw new AssertionError(x);
    }
  }

  private int storedIn(String workspace) {
    ListMemoriesResponse list =
        MemoryServiceGrpc.newBlockingStub(sidecar.channel)
            .listMemories(
                ListMemoriesRequest.newBuilder()
                    .setScope(Scope.newBuilder().setWorkspaceId(workspace))
                    .setProfile("workspace")
                    .build());
    return list.getMemoriesCount();
  }

  /** {@code bytes} with the UTF-8 of {@code marker} (three bytes) replaced by a lone surrogate. */
  private static byte[] withText(byte[] bytes, String marker) {
    byte[] m = marker.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i + m.length <= bytes.length; i++) {
      if (Arrays.equals(bytes, i, i + m.length, m, 0, m.length)) {
        byte[] out = bytes.clone();
        System.arraycopy(LONE_SURROGATE, 0, out, i, LONE_SURROGATE.length);
        return out;
      }
    }
    throw new IllegalArgumentException("marker not found");
  }

  /** Calls {@code method} with {@code request} as its raw bytes; the call must fail. */
  private <Q, R> StatusRuntimeException call(MethodDescriptor<Q, R> method, byte[] request) {
    MethodDescriptor<byte[], byte[]> raw = method.toBuilder(RAW, RAW).build();
    try {
      ClientCalls.blockingUnaryCall(
          sidecar.channel,
          raw,
          CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS),
          request);
    } catch (StatusRuntimeException e) {
      return e;
    }
    return fail("the call succeeded");
  }

  private static final MethodDescriptor.Marshaller<byte[]> RAW =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };
}
