package dev.memsidecar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.LearningServiceGrpc;
import dev.memsidecar.proto.v1.ListMemoriesRequest;
import dev.memsidecar.proto.v1.ListMemoryFilesRequest;
import dev.memsidecar.proto.v1.ListSkillCandidatesRequest;
import dev.memsidecar.proto.v1.ListSkillsRequest;
import dev.memsidecar.proto.v1.ListToolRulesRequest;
import dev.memsidecar.proto.v1.ListWriteDecisionsRequest;
import dev.memsidecar.proto.v1.MemoryFileServiceGrpc;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.ToolRuleServiceGrpc;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.stub.ClientCalls;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random requests to every unary RPC of the contract, from a client that knows the schema
 * but not the rules: fields set or not, odd strings (empty, over-long, control characters, paths,
 * huge), odd numbers, long repeated fields and maps, unknown enum values, and now and then bytes
 * that are not a message at all. Checks for each: never UNKNOWN or INTERNAL; a call that fails
 * changes nothing a client of its scope can see (memories of every profile, memory files, tool
 * rules, write decisions, skill candidates and skills); and the sidecar is alive and healthy at the
 * end. {@code -Dfuzz.seed} and {@code -Dfuzz.requests} replay or lengthen a run; a failure names
 * the seed and the request's index.
 */
class TestFuzz {
  private static final long SEED = Long.getLong("fuzz.seed", 20261123L);
  private static final int REQUESTS = Integer.getInteger("fuzz.requests", 2500);

  private static final List<String> PROFILES = List.of("workspace", "user", "lucene", "notes");
  private static final List<String> WORKSPACES = List.of("w0", "w1", "w2");

  @TempDir static Path workspaceDir;
  private static SidecarProcess sidecar;

  @BeforeAll
  static void start() {
    Fixtures.writeServerConfig(workspaceDir, "memory:\n  embedder: hash\n");
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

  @Test
  void randomRequestsNeverAnswerUnknownOrInternalAndFailedOnesChangeNothing() {
    List<MethodDescriptor<?, ?>> methods = unaryMethods();
    Random random = new Random(SEED);
    List<String> problems = new ArrayList<>();
    int failed = 0;
    for (int i = 0; i < REQUESTS && problems.size() < 10; i++) {
      MethodDescriptor<?, ?> method = methods.get(random.nextInt(methods.size()));
      Descriptor type = requestType(method);
      DynamicMessage request = new Filler(random).message(type, 0);
      byte[] bytes = request.toByteArray();
      if (random.nextInt(10) == 0) {
        bytes = corrupt(bytes, random);
      }
      String scope = scopeOf(request);
      String before = scope == null || readOnly(method) ? null : state(scope);
      Status status = call(method, bytes);
      String where = "request " + i + " (seed " + SEED + ") " + method.getFullMethodName();
      if (status.getCode() == Status.Code.UNKNOWN || status.getCode() == Status.Code.INTERNAL) {
        problems.add(where + " answered " + status + " to " + shorten(request));
      } else if (!status.isOk()) {
        failed++;
        if (before != null && !before.equals(state(scope))) {
          problems.add(where + " failed with " + status + " but changed scope " + scope);
        }
      }
    }
    assertTrue(problems.isEmpty(), () -> String.join("\n", problems));
    assertTrue(failed > REQUESTS / 4, "the fuzzer should mostly hit errors: " + failed);
    assertTrue(sidecar.isAlive(), "the sidecar is alive");
    assertEquals(
        HealthCheckResponse.ServingStatus.SERVING,
        sidecar.health().check(HealthCheckRequest.getDefaultInstance()).getStatus());
  }

  private static List<MethodDescriptor<?, ?>> unaryMethods() {
    return Stream.of(
            MemoryServiceGrpc.getServiceDescriptor(),
            MemoryFileServiceGrpc.getServiceDescriptor(),
            AdminServiceGrpc.getServiceDescriptor(),
            ToolRuleServiceGrpc.getServiceDescriptor(),
            LearningServiceGrpc.getServiceDescriptor())
        .flatMap(s -> s.getMethods().stream())
        .filter(m -> m.getType() == MethodDescriptor.MethodType.UNARY)
        .<MethodDescriptor<?, ?>>map(m -> m)
        .toList();
  }

  private static Descriptor requestType(MethodDescriptor<?, ?> method) {
    Object prototype =
        ((MethodDescriptor.PrototypeMarshaller<?>) method.getRequestMarshaller())
            .getMessagePrototype();
    return ((Message) prototype).getDescriptorForType();
  }

  private static boolean readOnly(MethodDescriptor<?, ?> method) {
    String name = method.getBareMethodName();
    return name.startsWith("Get")
        || name.startsWith("List")
        || name.startsWith("Read")
        || name.startsWith("Render")
        || name.startsWith("Export")
        || name.equals("Search");
  }

  /** The request's workspace id if it is one of the pool's, else null. */
  private static String scopeOf(DynamicMessage request) {
    FieldDescriptor scopeField = request.getDescriptorForType().findFieldByName("scope");
    if (scopeField == null || !request.hasField(scopeField)) {
      return null;
    }
    Message scope = (Message) request.getField(scopeField);
    Object id = scope.getField(scope.getDescriptorForType().findFieldByName("workspace_id"));
    return WORKSPACES.contains(id) ? (String) id : null;
  }

  /** What a client of {@code workspace} (and its users) can see, as text. */
  private static String state(String workspace) {
    StringBuilder out = new StringBuilder();
    for (String user : List.of("", "u0")) {
      Scope scope = Scope.newBuilder().setWorkspaceId(workspace).setUserId(user).build();
      for (String profile : PROFILES) {
        out.append(
            answer(
                () ->
                    sidecar
                        .memory()
                        .listMemories(
                            ListMemoriesRequest.newBuilder()
                                .setScope(scope)
                                .setProfile(profile)
                                .setPageSize(500)
                                .setIncludeInactive(true)
                                .build())));
      }
      out.append(
          answer(
              () ->
                  sidecar
                      .files()
                      .listMemoryFiles(
                          ListMemoryFilesRequest.newBuilder().setScope(scope).build())));
      out.append(
          answer(
              () ->
                  sidecar
                      .toolRules()
                      .listToolRules(ListToolRulesRequest.newBuilder().setScope(scope).build())));
      out.append(
          answer(
              () ->
                  sidecar
                      .admin()
                      .listWriteDecisions(
                          ListWriteDecisionsRequest.newBuilder().setScope(scope).build())));
      out.append(
          answer(
              () ->
                  sidecar
                      .learning()
                      .listSkillCandidates(
                          ListSkillCandidatesRequest.newBuilder().setScope(scope).build())));
      out.append(
          answer(
              () ->
                  sidecar
                      .learning()
                      .listSkills(ListSkillsRequest.newBuilder().setScope(scope).build())));
    }
    return out.toString();
  }

  private static String answer(Supplier<Message> call) {
    try {
      return call.get().toString();
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode().toString();
    }
  }

  private static Status call(MethodDescriptor<?, ?> method, byte[] request) {
    MethodDescriptor<byte[], byte[]> raw =
        method.toBuilder(Fixtures.RAW_BYTES, Fixtures.RAW_BYTES).build();
    try {
      ClientCalls.blockingUnaryCall(
          sidecar.channel(),
          raw,
          CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
          request);
      return Status.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus();
    }
  }

  private static byte[] corrupt(byte[] bytes, Random random) {
    if (bytes.length == 0 || random.nextBoolean()) {
      byte[] noise = new byte[1 + random.nextInt(40)];
      random.nextBytes(noise);
      return noise;
    }
    byte[] out = bytes.clone();
    if (random.nextBoolean()) {
      return Arrays.copyOf(out, random.nextInt(out.length));
    }
    out[random.nextInt(out.length)] ^= (byte) (1 << random.nextInt(8));
    return out;
  }

  private static String shorten(Message request) {
    String text = request.toString().replace('\n', ' ');
    return text.length() <= 300 ? text : text.substring(0, 300) + "...";
  }

  /** Fills messages with values a careless or hostile client might send. */
  private static final class Filler {
    private final Random random;

    Filler(Random random) {
      this.random = random;
    }

    DynamicMessage message(Descriptor type, int depth) {
      if (type.getFullName().equals(Scope.getDescriptor().getFullName()) && random.nextInt(5) > 0) {
        return scope();
      }
      DynamicMessage.Builder builder = DynamicMessage.newBuilder(type);
      for (FieldDescriptor field : type.getFields()) {
        if (random.nextInt(10) < 4
            || (field.getType() == FieldDescriptor.Type.MESSAGE && depth > 2)) {
          continue;
        }
        if (field.isRepeated()) {
          int n =
              switch (random.nextInt(10)) {
                case 0 -> 40 + random.nextInt(200);
                case 1 -> 0;
                default -> 1 + random.nextInt(3);
              };
          for (int k = 0; k < n; k++) {
            builder.addRepeatedField(field, value(field, depth));
          }
        } else {
          builder.setField(field, value(field, depth));
        }
      }
      return builder.build();
    }

    private DynamicMessage scope() {
      Scope.Builder scope =
          Scope.newBuilder().setWorkspaceId(WORKSPACES.get(random.nextInt(WORKSPACES.size())));
      if (random.nextBoolean()) {
        scope.setUserId("u0");
      }
      if (random.nextInt(4) == 0) {
        scope.setAgentId("a0").setSessionId("s0");
      }
      return DynamicMessage.newBuilder(scope.build()).build();
    }

    private Object value(FieldDescriptor field, int depth) {
      return switch (field.getJavaType()) {
        case STRING -> text(field.getName());
        case INT -> pick(0, 1, 8, 100, 101, 501, -1, Integer.MAX_VALUE, Integer.MIN_VALUE);
        case LONG -> (long) pick(0, 1, -1, Integer.MAX_VALUE) * pick(1, 1_000_000);
        case FLOAT -> pickFloat(0f, 0.5f, 1f, -1f, 11f, Float.NaN, Float.POSITIVE_INFINITY);
        case DOUBLE -> (double) pickFloat(0f, 0.5f, 7f, -3f, Float.NaN);
        case BOOLEAN -> random.nextBoolean();
        case BYTE_STRING -> ByteString.copyFromUtf8(text("bytes"));
        case ENUM -> {
          EnumDescriptor e = field.getEnumType();
          yield random.nextInt(5) == 0
              ? e.findValueByNumberCreatingIfUnknown(99)
              : e.getValues().get(random.nextInt(e.getValues().size()));
        }
        case MESSAGE -> message(field.getMessageType(), depth + 1);
      };
    }

    private String text(String field) {
      return switch (random.nextInt(17)) {
        case 0 -> "";
        case 1 -> "x".repeat(65);
        case 2 -> "y".repeat(5000 + random.nextInt(70_000));
        case 3 -> "bad id with spaces";
        case 4 -> "ctl\u0000\u0007\u001b[31m";
        case 5 -> "../../etc/passwd";
        case 6 -> "/memories/" + PROFILES.get(random.nextInt(PROFILES.size())) + ".md";
        case 7 -> "用户喜欢简洁的回答 🙂";
        case 8 -> "{\"to\": \"sarah@example.com\", \"x\": [1, {\"y\": null}]}";
        case 9 -> "Never email Sarah. I prefer tea. We deploy on Fridays.";
        case 10 -> "send_email";
        case 11 -> "memoryWrite";
        case 12 -> PROFILES.get(random.nextInt(PROFILES.size()));
        case 13 -> "\uFEFF\u202Eevil";
        case 14 ->
            pickText("langmem", "deepagents", "housekeeping", "skills"); // maintenance targets
        default -> field + "-" + random.nextInt(3);
      };
    }

    private String pickText(String... values) {
      return values[random.nextInt(values.length)];
    }

    private int pick(int... values) {
      return values[random.nextInt(values.length)];
    }

    private float pickFloat(float... values) {
      return values[random.nextInt(values.length)];
    }
  }
}
