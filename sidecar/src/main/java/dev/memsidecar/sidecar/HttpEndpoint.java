package dev.memsidecar.sidecar;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.memsidecar.core.StartupException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The sidecar's HTTP port ({@code server.http.port}, {@code serve --http-port}): {@code /metrics}
 * in the Prometheus text format, or OpenMetrics when the scraper asks for it ({@code Accept:
 * application/openmetrics-text}). Served by the JDK's own HTTP server on virtual threads; with a
 * bearer token configured, every request must carry it as gRPC calls do ({@code Authorization:
 * Bearer <token>}), else 401. With the inspector on, also {@code /inspector/} ({@link Inspector}).
 */
final class HttpEndpoint implements AutoCloseable {
  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
  static final String OPENMETRICS_TEXT =
      "application/openmetrics-text; version=1.0.0; charset=utf-8";

  private final HttpServer server;
  private final ExecutorService executor;
  private final byte[] token;
  private final SidecarMetrics metrics;
  private final Inspector inspector;

  private HttpEndpoint(
      HttpServer server, String token, SidecarMetrics metrics, Inspector inspector) {
    this.server = server;
    this.token = token == null ? null : ("Bearer " + token).getBytes(StandardCharsets.US_ASCII);
    this.metrics = metrics;
    this.inspector = inspector;
    this.executor = Executors.newVirtualThreadPerTaskExecutor();
    server.setExecutor(executor);
    server.createContext("/", this::handle);
  }

  /**
   * Listens on {@code host:port} (0: any free port) and serves.
   *
   * @param inspector the web inspector to serve under {@code /inspector/}, or null for none (its
   *     paths are then 404); closed with this endpoint
   * @throws StartupException when it cannot listen (the port is taken, the host is not local)
   */
  static HttpEndpoint start(
      String host, int port, String token, SidecarMetrics metrics, Inspector inspector) {
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(host, port), 64);
    } catch (IOException e) {
      throw new StartupException(
          "cannot serve HTTP on " + host + ":" + port + ": " + e.getMessage(), e);
    }
    HttpEndpoint endpoint = new HttpEndpoint(server, token, metrics, inspector);
    server.start();
    return endpoint;
  }

  int port() {
    return server.getAddress().getPort();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      // The inspector's page holds no data; the API calls it makes carry the token.
      if (inspector != null && Inspector.isShell(path)) {
        inspector.serveShell(exchange, path);
        return;
      }
      if (token != null && !authorized(exchange)) {
        if (inspector != null && path.startsWith(Inspector.API)) {
          // The API's own error shape, as for every other refusal it makes.
          Inspector.sendError(exchange, 401, "UNAUTHENTICATED", "a bearer token is required");
        } else {
          exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
          send(exchange, 401, "text/plain; charset=utf-8", "a bearer token is required\n");
        }
        return;
      }
      if (inspector != null && path.startsWith(Inspector.API)) {
        inspector.serveApi(exchange, path);
        return;
      }
      if (!path.equals("/metrics")) {
        send(exchange, 404, "text/plain; charset=utf-8", "not found: " + path + "\n");
        return;
      }
      if (!exchange.getRequestMethod().equals("GET")
          && !exchange.getRequestMethod().equals("HEAD")) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        send(exchange, 405, "text/plain; charset=utf-8", "GET only\n");
        return;
      }
      String accept = exchange.getRequestHeaders().getFirst("Accept");
      String type =
          accept != null && accept.contains("application/openmetrics-text")
              ? OPENMETRICS_TEXT
              : PROMETHEUS_TEXT;
      send(exchange, 200, type, metrics.scrape(type));
    }
  }

  private boolean authorized(HttpExchange exchange) {
    String given = exchange.getRequestHeaders().getFirst("Authorization");
    return given != null && MessageDigest.isEqual(token, given.getBytes(StandardCharsets.US_ASCII));
  }

  private static void send(HttpExchange exchange, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", type);
    boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    if (inspector != null) {
      inspector.close();
    }
  }
}
