package dev.memsidecar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.memsidecar.proto.v1.ListMemoriesRequest;
import dev.memsidecar.proto.v1.ListMemoriesResponse;
import dev.memsidecar.proto.v1.Memory;
import dev.memsidecar.proto.v1.MemoryServiceGrpc.MemoryServiceBlockingStub;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.RememberResponse;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchHit;
import dev.memsidecar.proto.v1.SearchRequest;
import dev.memsidecar.proto.v1.WriteOutcome;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.function.Executable;

/** Scopes, requests, configuration files and assertions shared by the black-box tests. */
final class Fixtures {
  /**
   * A marshaller that sends and receives a message's bytes as they are, for calls that must reach
   * the server with bytes a generated stub would never write.
   */
  static final MethodDescriptor.Marshaller<byte[]> RAW_BYTES =
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

  static final String PROVIDER = "langmem-sqlite";

  private static final AtomicInteger IDS = new AtomicInteger();

  private Fixtures() {}

  /** A fresh id, valid for a scope, unique within this test JVM. */
  static String uniqueId(String prefix) {
    return String.format(
        Locale.ROOT, "%s-%d-%d", prefix, ProcessHandle.current().pid(), IDS.incrementAndGet());
  }

  static Scope workspace(String workspaceId) {
    return Scope.newBuilder().setWorkspaceId(workspaceId).build();
  }

  static Scope user(String workspaceId, String userId) {
    return Scope.newBuilder().setWorkspaceId(workspaceId).setUserId(userId).build();
  }

  static Scope agent(String workspaceId, String agentId) {
    return Scope.newBuilder().setWorkspaceId(workspaceId).setAgentId(agentId).build();
  }

  static Scope session(String workspaceId, String sessionId) {
    return Scope.newBuilder().setWorkspaceId(workspaceId).setSessionId(sessionId).build();
  }

  /** Remembers {@code content} and checks that it was stored; returns the stored memory. */
  static Memory remember(
      MemoryServiceBlockingStub stub, Scope scope, String profile, String content) {
    return remember(
        stub,
        RememberRequest.newBuilder()
            .setScope(scope)
            .setProfile(profile)
            .setContent(content)
            .build());
  }

  static Memory remember(MemoryServiceBlockingStub stub, RememberRequest request) {
    RememberResponse response = stub.remember(request);
    assertEquals(
        WriteOutcome.WRITE_OUTCOME_STORED,
        response.getDecision().getOutcome(),
        () -> "expected STORED for " + request.getContent() + ": " + response);
    Memory memory = response.getDecision().getMemory();
    assertTrue(!memory.getId().isEmpty(), () -> "stored memory has no id: " + response);
    return memory;
  }

  /** Every memory of one profile, following next_page_token to the end. */
  static List<Memory> listAll(
      MemoryServiceBlockingStub stub,
      Scope scope,
      String profile,
      int pageSize,
      boolean includeInactive) {
    List<Memory> all = new ArrayList<>();
    String token = "";
    for (int page = 0; ; page++) {
      if (page > 10_000) {
        fail("ListMemories never returned an empty next_page_token");
      }
      ListMemoriesResponse response =
          stub.listMemories(
              ListMemoriesRequest.newBuilder()
                  .setScope(scope)
                  .setProfile(profile)
                  .setPageSize(pageSize)
                  .setPageToken(token)
                  .setIncludeInactive(includeInactive)
                  .build());
      all.addAll(response.getMemoriesList());
      token = response.getNextPageToken();
      if (token.isEmpty()) {
        return all;
      }
    }
  }

  static List<String> ids(List<Memory> memories) {
    return memories.stream().map(Memory::getId).toList();
  }

  static List<Memory> search(
      MemoryServiceBlockingStub stub, Scope scope, String query, String... profiles) {
    return stub
        .search(
            SearchRequest.newBuilder()
                .setScope(scope)
                .setQuery(query)
                .addAllProfiles(List.of(profiles))
                .build())
        .getHitsList()
        .stream()
        .map(SearchHit::getMemory)
        .toList();
  }

  /** Runs {@code call}, which must fail with {@code code}; returns the failure. */
  static StatusRuntimeException assertStatus(Status.Code code, Executable call) {
    try {
      call.execute();
    } catch (StatusRuntimeException e) {
      assertEquals(code, e.getStatus().getCode(), () -> "wrong status: " + e.getStatus());
      return e;
    } catch (Throwable t) {
      throw new AssertionError("expected " + code + " but got " + t, t);
    }
    throw new AssertionError("expected " + code + " but the call succeeded");
  }

  /** Like {@link #assertStatus(Status.Code, Executable)}, and the message names {@code field}. */
  static StatusRuntimeException assertStatus(Status.Code code, String field, Executable call) {
    StatusRuntimeException e = assertStatus(code, call);
    String description = e.getStatus().getDescription();
    assertNotNull(description, () -> code + " without a message; it should name " + field);
    assertTrue(
        description.contains(field),
        () -> code + " message should name " + field + ": " + description);
    return e;
  }

  /** Writes {@code memsidecar.yaml} of a workspace. */
  static void writeServerConfig(Path workspace, String yaml) {
    write(workspace.resolve("memsidecar.yaml"), yaml);
  }

  /** Writes the four flags into {@code memsidecar.yaml}. */
  static void writeFlags(
      Path workspace, boolean filesRead, boolean filesWrite, boolean langRead, boolean langWrite) {
    writeServerConfig(
        workspace,
        String.format(
            Locale.ROOT,
            """
            memory:
              deepagentsMem:
                read: %s
                write: %s
              LangMem:
                read: %s
                write: %s
            """,
            filesRead,
            filesWrite,
            langRead,
            langWrite));
  }

  /** Writes {@code config/memory/<name>.yaml}: a Memory profile on langmem-sqlite. */
  static void writeProfile(Path workspace, String name, String scopeKind, boolean enabled) {
    writeProfile(workspace, name, scopeKind, enabled, PROVIDER);
  }

  /** Writes {@code config/memory/<name>.yaml}: a Memory profile on {@code provider}. */
  static void writeProfile(
      Path workspace, String name, String scopeKind, boolean enabled, String provider) {
    write(
        workspace.resolve("config").resolve("memory").resolve(name + ".yaml"),
        String.format(
            Locale.ROOT,
            """
            apiVersion: memsidecar.dev/v1
            kind: Memory
            metadata:
              name: %s
            spec:
              provider: %s
              profile: %s
              enabled: %s
            """,
            name,
            provider,
            scopeKind,
            enabled));
  }

  static void write(Path file, String text) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** True when {@code dir} is a folder holding at least one file (at any depth). */
  static boolean holdsFiles(Path dir) {
    if (!Files.isDirectory(dir)) {
      return false;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      return paths.anyMatch(Files::isRegularFile);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Copies a folder tree (a stopped sidecar's data dir) to {@code target}. */
  static void copyTree(Path source, Path target) {
    if (SharedDatabase.ENABLED) {
      SharedDatabase.copy(source, target);
    }
    try {
      Files.walkFileTree(
          source,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
                throws IOException {
              Files.createDirectories(target.resolve(source.relativize(dir).toString()));
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                throws IOException {
              Files.copy(file, target.resolve(source.relativize(file).toString()));
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
