package dev.memsidecar.sidecar;

import static dev.memsidecar.sidecar.ServerUnderTest.profile;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.conformance.InMemoryProvider;
import dev.memsidecar.core.config.ScopeKind;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import io.grpc.Status;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The inspector's JSON API over a real engine: it answers with the contract's JSON through the same
 * gRPC services (and their statuses), refuses writes unless allowed, streams events, and refuses a
 * rebound host name when no token guards it.
 */
class TestInspectorApi {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** A sidecar in process with the inspector on its HTTP port. */
  private record Running(ServerUnderTest grpc, HttpEndpoint http) implements AutoCloseable {
    static Running start(Path data, boolean writes) {
      ServerUnderTest grpc =
          ServerUnderTest.inProcess(
              data, 4, 4, profile("workspace", ScopeKind.WORKSPACE, InMemoryProvider.NAME));
      // The in-process channel Main gives the inspector; here the test's own, to the same server.
      Inspector wired =
          new Inspector(grpc.channel, grpc.server.engine(), "test", writes, "127.0.0.1", false);
      HttpEndpoint http =
          HttpEndpoint.start(
              "127.0.0.1", 0, null, new SidecarMetrics(grpc.server.engine(), data), wired);
      return new Running(grpc, http);
    }

    String base() {
      return "http://127.0.0.1:" + http.port();
    }

    HttpResponse<String> rpc(String method, String json) throws Exception {
      return HTTP.send(
          HttpRequest.newBuilder(URI.create(base() + "/inspector/api/rpc/memsidecar.v1." + method))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(json))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    }

    String remember(String content) {
      return MemoryServiceGrpc.newBlockingStub(grpc.channel)
          .remember(
              RememberRequest.newBuilder()
                  .setScope(Scope.newBuilder().setWorkspaceId("w"))
                  .setContent(content)
                  .build())
          .getDecision()
          .getMemory()
          .getId();
    }

    @Override
    public void close() {
      http.close();
      grpc.close();
    }
  }

  @Test
  void readsAnswerWithTheContractsJsonAndWritesAreRefusedWhenReadOnly(@TempDir Path data)
      throws Exception {
    try (Running r = Running.start(data, false)) {
      String id = r.remember("The build cache lives on /mnt/cache");
      HttpResponse<String> list =
          r.rpc("MemoryService/ListMemories", "{\"scope\": {\"workspaceId\": \"w\"}}");
      assertEquals(200, list.statusCode(), list.body());
      assertTrue(list.body().contains("\"content\": \"The build cache lives on /mnt/cache\""));
      assertTrue(list.body().contains("\"status\": \"MEMORY_STATUS_ACTIVE\""), list.body());

      String forget =
          "{\"scope\": {\"workspaceId\": \"w\"}, \"profile\": \"workspace\", \"id\": \""
              + id
              + "\"}";
      HttpResponse<String> refused = r.rpc("MemoryService/ForgetMemory", forget);
      assertEquals(403, refused.statusCode());
      assertTrue(refused.body().contains("read-only"), refused.body());
      assertTrue(r.rpc("MemoryService/GetMemory", forget).body().contains("MEMORY_STATUS_ACTIVE"));

      // The services' own statuses come through: a scope without a workspace, an unknown id.
      HttpResponse<String> invalid = r.rpc("MemoryService/ListMemories", "{}");
      assertEquals(400, invalid.statusCode());
      assertTrue(invalid.body().contains("INVALID_ARGUMENT"), invalid.body());
      HttpResponse<String> missing =
          r.rpc(
              "MemoryService/GetMemory",
              "{\"scope\": {\"workspaceId\": \"w\"}, \"profile\": \"workspace\", \"id\":"
                  + " \"nope\"}");
      assertEquals(404, missing.statusCode(), missing.body());
      // A body that is not the request message is refused before any call.
      HttpResponse<String> unknownField =
          r.rpc("MemoryService/ListMemories", "{\"scope\": {\"workspace\": \"w\"}}");
      assertEquals(400, unknownField.statusCode());
      assertTrue(unknownField.body().contains("ListMemoriesRequest"), unknownField.body());

      HttpResponse<String> scopes =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(r.base() + "/inspector/api/scopes")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertTrue(scopes.body().contains("\"workspaceId\": \"w\""), scopes.body());
    }
  }

  @Test
  void writesGoThroughWhenAllowed(@TempDir Path data) throws Exception {
    try (Running r = Running.start(data, true)) {
      String id = r.remember("The release train leaves on Fridays");
      String forget =
          "{\"scope\": {\"workspaceId\": \"w\"}, \"profile\": \"workspace\", \"id\": \""
              + id
              + "\"}";
      HttpResponse<String> done = r.rpc("MemoryService/ForgetMemory", forget);
      assertEquals(200, done.statusCode(), done.body());
      assertTrue(
          r.rpc("MemoryService/GetMemory", forget).body().contains("MEMORY_STATUS_FORGOTTEN"));
    }
  }

  @Test
  void eventsStreamAsServerSentEvents(@TempDir Path data) throws Exception {
    try (Running r = Running.start(data, false)) {
      int port = r.http.port();
      try (Socket s = new Socket("127.0.0.1", port)) {
        s.setSoTimeout(10_000);
        OutputStream out = s.getOutputStream();
        out.write(
            ("GET /inspector/api/events?workspace_id=w HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        BufferedReader in =
            new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
        assertEquals("HTTP/1.1 200 OK", in.readLine());
        CompletableFuture<String> event =
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    for (String line; (line = in.readLine()) != null; ) {
                      if (line.startsWith("event: ")) {
                        return line + "\n" + in.readLine();
                      }
                    }
                    return "the stream ended";
                  } catch (java.io.IOException e) {
                    return e.toString();
                  }
                });
        r.remember("The on-call phone is in drawer 3");
        String got = event.get(10, TimeUnit.SECONDS);
        assertTrue(got.startsWith("event: memory.stored\n"), got);
        assertTrue(got.contains("\"namespace\":\"w:workspace:workspace\""), got);
      }
    }
  }

  @Test
  void aReboundHostNameIsRefusedWithoutAToken(@TempDir Path data) throws Exception {
    try (Running r = Running.start(data, false)) {
      assertTrue(raw(r.http.port(), "evil.example").startsWith("HTTP/1.1 403"));
      assertTrue(raw(r.http.port(), "evil.example:80").startsWith("HTTP/1.1 403"));
      assertTrue(raw(r.http.port(), "localhost:" + r.http.port()).startsWith("HTTP/1.1 200"));
      assertTrue(raw(r.http.port(), "[::1]:" + r.http.port()).startsWith("HTTP/1.1 200"));
      // The metrics beside it are not the inspector's business.
      assertEquals(
          200,
          HTTP.send(
                  HttpRequest.newBuilder(URI.create(r.base() + "/metrics")).build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode());
    }
  }

  @Test
  void grpcStatusesBecomeHttpStatuses() {
    Map<Status.Code, Integer> expected =
        Map.of(
            Status.Code.INVALID_ARGUMENT, 400,
            Status.Code.UNAUTHENTICATED, 401,
            Status.Code.PERMISSION_DENIED, 403,
            Status.Code.NOT_FOUND, 404,
            Status.Code.ABORTED, 409,
            Status.Code.RESOURCE_EXHAUSTED, 429,
            Status.Code.UNAVAILABLE, 503,
            Status.Code.INTERNAL, 500);
    expected.forEach((code, http) -> assertEquals(http, Inspector.httpStatus(code), code.name()));
    assertEquals("\"a\\\"b\\u003c/script\\u003e\\n\"", Inspector.quote("a\"b</script>\n"));
    assertEquals(List.of("a b", ""), Inspector.query("x=a+b&x=").get("x"));
    assertEquals("::1", Inspector.hostName("[::1]:8080"));
    assertEquals("localhost", Inspector.hostName("LOCALHOST:8080"));
  }

  private static String raw(int port, String host) throws Exception {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(
          ("GET /inspector/api/info HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
