package dev.memsidecar.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memsidecar.proto.v1.BeginRunRequest;
import dev.memsidecar.proto.v1.EndRunRequest;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.MemoryServiceGrpc.MemoryServiceBlockingStub;
import dev.memsidecar.proto.v1.RememberRequest;
import dev.memsidecar.proto.v1.Scope;
import dev.memsidecar.proto.v1.SearchRequest;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /metrics} on the HTTP port, scraped as Prometheus does, after real calls: RPC latency per
 * method and status, write outcomes, recall sizes, the data folder, the JVM; the token guards it as
 * it guards gRPC; OpenMetrics on request.
 */
class TestMetrics {
  private static final String TOKEN = "metrics-test-token-0123456789";

  @Test
  void aScrapeShowsTheCallsTheSidecarServed(@TempDir Path ws) throws Exception {
    try (SidecarProcess sidecar =
        SidecarProcess.start(ws, Map.of("MEMSIDECAR_AUTH_TOKEN", TOKEN), "--http-port", "0")) {
      String http =
          sidecar.stdoutLines().stream()
              .filter(l -> l.startsWith("http on "))
              .findFirst()
              .orElseThrow(() -> new AssertionError(sidecar.stdoutLines().toString()))
              .substring("http on ".length());
      Metadata auth = new Metadata();
      auth.put(
          Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + TOKEN);
      MemoryServiceBlockingStub memory =
          MemoryServiceGrpc.newBlockingStub(sidecar.channel())
              .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(auth));
      Scope scope = Scope.newBuilder().setWorkspaceId("metrics").build();
      memory.remember(
          RememberRequest.newBuilder()
              .setScope(scope)
              .setContent("The deploy day is Tuesday.")
              .build());
      memory.search(SearchRequest.newBuilder().setScope(scope).setQuery("deploy day").build());
      memory.endRun(
          EndRunRequest.newBuilder()
              .setScope(scope)
              .setRunId("run-small-talk")
              .setInput("The weather is kind of meh today, I guess.")
              .build());
      memory.beginRun(
          BeginRunRequest.newBuilder().setScope(scope).setInput("When do we deploy?").build());
      assertThrows(
          StatusRuntimeException.class,
          () -> memory.search(SearchRequest.newBuilder().setScope(scope).build()));

      HttpClient client = HttpClient.newHttpClient();
      URI uri = URI.create("http://" + http + "/metrics");
      HttpResponse<String> refused =
          client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(401, refused.statusCode());

      HttpResponse<String> scrape =
          client.send(
              HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + TOKEN).build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, scrape.statusCode());
      assertTrue(
          scrape.headers().firstValue("Content-Type").orElseThrow().startsWith("text/plain"));
      String body = scrape.body();
      for (String line :
          new String[] {
            "memsidecar_rpc_seconds_bucket{method=\"memsidecar.v1.MemoryService/Remember\",status=\"OK\"",
            "memsidecar_rpc_seconds_count{method=\"memsidecar.v1.MemoryService/Search\",status=\"INVALID_ARGUMENT\"}"
                + " 1",
            "memsidecar_writes_total{outcome=\"stored\"} 1",
            "memsidecar_rejections_total{reason=\"gate\"} 1",
            "memsidecar_recall_items_count{part=\"recalled\"} 1",
            "memsidecar_data_bytes ",
            "memsidecar_session_vectors_pending ",
            "memsidecar_memory_vectors_pending{profile=\"workspace\"} ",
            "memsidecar_memory_vectors_oldest_wait_seconds{profile=\"user\"} ",
            "jvm_memory_used_bytes{"
          }) {
        assertTrue(body.contains(line), () -> "missing " + line + " in:\n" + body);
      }

      HttpResponse<String> open =
          client.send(
              HttpRequest.newBuilder(uri)
                  .header("Authorization", "Bearer " + TOKEN)
                  .header("Accept", "application/openmetrics-text; version=1.0.0")
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertTrue(
          open.headers()
              .firstValue("Content-Type")
              .orElseThrow()
              .startsWith("application/openmetrics-text"));
      assertTrue(open.body().strip().endsWith("# EOF"), "OpenMetrics ends with # EOF");
    }
  }
}
