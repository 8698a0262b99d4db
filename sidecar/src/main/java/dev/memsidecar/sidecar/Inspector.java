package dev.memsidecar.sidecar;

import static java.util.Objects.requireNonNull;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import com.sun.net.httpserver.HttpExchange;
import dev.memsidecar.core.MemoryEngine;
import dev.memsidecar.core.Scope;
import dev.memsidecar.proto.v1.AdminServiceGrpc;
import dev.memsidecar.proto.v1.LearningServiceGrpc;
import dev.memsidecar.proto.v1.MemoryFileServiceGrpc;
import dev.memsidecar.proto.v1.MemoryServiceGrpc;
import dev.memsidecar.proto.v1.SessionServiceGrpc;
import dev.memsidecar.proto.v1.ToolRuleServiceGrpc;
import dev.memsidecar.proto.v1.WatchEventsRequest;
import dev.memsidecar.proto.v1.WatchEventsResponse;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.MetadataUtils;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The web inspector on the HTTP port ({@code server.inspector.enabled}): a static single-page UI at
 * {@code /inspector/} and its JSON API under {@code /inspector/api/}. The API calls the sidecar's
 * own gRPC services over an in-process channel, carrying the HTTP request's bearer token as gRPC
 * metadata, so that the token check, admission, the four flags, the per-profile rules and namespace
 * isolation are exactly those of a gRPC client; requests and responses are the contract's messages
 * in protobuf's JSON mapping. Read-only unless {@code server.inspector.writes} is true: a mutating
 * method is then refused with 403 before it reaches the services.
 *
 * <p>Routes:
 *
 * <ul>
 *   <li>{@code GET /inspector/} and its {@code app.js}, {@code app.css}: the UI, served without the
 *       token (it holds no data; every API call it makes needs the token);
 *   <li>{@code GET /inspector/api/info}: version, whether writes are allowed, the methods offered;
 *   <li>{@code GET /inspector/api/scopes}: the workspace, user and agent ids the control plane has
 *       seen ({@link MemoryEngine#scopesSeen});
 *   <li>{@code POST /inspector/api/rpc/memsidecar.v1.<Service>/<Method>}: one unary call, the body
 *       the request as JSON ({@code Content-Type: application/json}), the answer the response as
 *       JSON, or {@code {"error": {"code", "message"}}} with the HTTP status of the gRPC status;
 *   <li>{@code GET /inspector/api/events?workspace_id=..&user_id=..&type=..}: {@code
 *       AdminService.WatchEvents} as Server-Sent Events (one {@code event: <type>} with the {@code
 *       RuntimeEvent} as JSON per event, a comment every 15 s to keep the stream alive).
 * </ul>
 *
 * <p>Browser safety: without a token, a request whose {@code Host} is a name other than {@code
 * localhost} or the configured HTTP host is refused (DNS rebinding); a POST must be {@code
 * application/json} (so a cross-site form cannot send one); responses carry {@code nosniff}, {@code
 * no-store} and, for the UI, a content security policy that allows nothing but the sidecar itself.
 * Thread-safe.
 */
final class Inspector implements AutoCloseable {
  static final String PREFIX = "/inspector/";
  static final String API = PREFIX + "api/";
  static final String RPC = API + "rpc/";
  static final int MAX_BODY_BYTES = 1 << 20;
  static final long CALL_SECONDS = 30;
  static final long HEARTBEAT_SECONDS = 15;

  /** Methods that change nothing: offered in both modes. */
  static final Set<String> READS =
      Set.of(
          "memsidecar.v1.MemoryService/Search",
          "memsidecar.v1.MemoryService/GetMemory",
          "memsidecar.v1.MemoryService/ListMemories",
          "memsidecar.v1.AdminService/GetStatus",
          "memsidecar.v1.AdminService/ListWriteDecisions",
          "memsidecar.v1.ToolRuleService/GetToolRule",
          "memsidecar.v1.ToolRuleService/ListToolRules",
          "memsidecar.v1.ToolRuleService/RenderToolRules",
          "memsidecar.v1.ToolRuleService/ExportToolRules",
          "memsidecar.v1.ToolRuleService/GetToolStats",
          "memsidecar.v1.SessionService/GetHistory",
          "memsidecar.v1.SessionService/SearchSessions",
          "memsidecar.v1.SessionService/ListSessions",
          "memsidecar.v1.LearningService/GetRun",
          "memsidecar.v1.LearningService/ListRuns",
          "memsidecar.v1.LearningService/GetTask",
          "memsidecar.v1.LearningService/ListSkillCandidates",
          "memsidecar.v1.LearningService/ListSkills",
          "memsidecar.v1.MemoryFileService/ListMemoryFiles",
          "memsidecar.v1.MemoryFileService/ReadMemoryFile");

  /** Methods that change something: offered only with {@code server.inspector.writes: true}. */
  static final Set<String> WRITES =
      Set.of(
          "memsidecar.v1.MemoryService/Remember",
          "memsidecar.v1.MemoryService/ForgetMemory",
          "memsidecar.v1.ToolRuleService/PutToolRule",
          "memsidecar.v1.ToolRuleService/DeleteToolRule",
          "memsidecar.v1.SessionService/DeleteSession",
          "memsidecar.v1.LearningService/ReviewSkillCandidate",
          "memsidecar.v1.LearningService/PublishSkill",
          "memsidecar.v1.MemoryFileService/WriteMemoryFile",
          "memsidecar.v1.MemoryFileService/EditMemoryFile",
          "memsidecar.v1.AdminService/RunMaintenance");

  private static final Map<String, String> STATIC =
      Map.of(
          "index.html", "text/html; charset=utf-8",
          "app.js", "text/javascript; charset=utf-8",
          "app.css", "text/css; charset=utf-8");
  private static final String CSP =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
          + " connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
  private static final JsonFormat.Printer JSON = JsonFormat.printer();
  private static final JsonFormat.Printer JSON_LINE =
      JsonFormat.printer().omittingInsignificantWhitespace();
  private static final JsonFormat.Parser PARSER = JsonFormat.parser();

  private final ManagedChannel channel;
  private final MemoryEngine engine;
  private final String version;
  private final boolean writes;
  private final String httpHost;
  private final boolean tokenRequired;
  private final Map<String, MethodDescriptor<Message, Message>> methods;

  /**
   * @param channel an in-process channel to the sidecar's own gRPC server; closed with this
   * @param httpHost the address the HTTP port binds to (a request may name it in {@code Host})
   * @param tokenRequired whether the HTTP port requires a bearer token
   */
  Inspector(
      ManagedChannel channel,
      MemoryEngine engine,
      String version,
      boolean writes,
      String httpHost,
      boolean tokenRequired) {
    this.channel = requireNonNull(channel, "channel is null");
    this.engine = requireNonNull(engine, "engine is null");
    this.version = requireNonNull(version, "version is null");
    this.writes = writes;
    this.httpHost = requireNonNull(httpHost, "httpHost is null");
    this.tokenRequired = tokenRequired;
    Map<String, MethodDescriptor<Message, Message>> found = new TreeMap<>();
    for (ServiceDescriptor service :
        List.of(
            MemoryServiceGrpc.getServiceDescriptor(),
            AdminServiceGrpc.getServiceDescriptor(),
            ToolRuleServiceGrpc.getServiceDescriptor(),
            SessionServiceGrpc.getServiceDescriptor(),
            LearningServiceGrpc.getServiceDescriptor(),
            MemoryFileServiceGrpc.getServiceDescriptor())) {
      for (MethodDescriptor<?, ?> method : service.getMethods()) {
        String name = method.getFullMethodName();
        if (READS.contains(name) || WRITES.contains(name)) {
          @SuppressWarnings("unchecked")
          MethodDescriptor<Message, Message> typed = (MethodDescriptor<Message, Message>) method;
          found.put(name, typed);
        }
      }
    }
    if (found.size() != READS.size() + WRITES.size()) {
      throw new IllegalStateException("the contract lacks inspector methods: " + found.keySet());
    }
    this.methods = Map.copyOf(found);
  }

  /** Whether {@code path} is a file of the UI, served without the token. */
  static boolean isShell(String path) {
    return path.equals("/inspector") || path.equals(PREFIX) || STATIC.containsKey(file(path));
  }

  private static String file(String path) {
    return path.startsWith(PREFIX) ? path.substring(PREFIX.length()) : "";
  }

  /** Serves the UI. */
  void serveShell(HttpExchange exchange, String path) throws IOException {
    if (!hostAllowed(exchange) || !readMethod(exchange)) {
      return;
    }
    if (path.equals("/inspector")) {
      exchange.getResponseHeaders().set("Location", PREFIX);
      send(
          exchange,
          301,
          "text/plain; charset=utf-8",
          ("see " + PREFIX + "\n").getBytes(StandardCharsets.UTF_8));
      return;
    }
    String name = path.equals(PREFIX) ? "index.html" : file(path);
    byte[] body;
    try (InputStream in = Inspector.class.getResourceAsStream("inspector/" + name)) {
      if (in == null) {
        throw new IllegalStateException("inspector/" + name + " is missing from the jar");
      }
      body = in.readAllBytes();
    }
    exchange.getResponseHeaders().set("Content-Security-Policy", CSP);
    exchange.getResponseHeaders().set("Referrer-Policy", "no-referrer");
    exchange.getResponseHeaders().set("X-Frame-Options", "DENY");
    send(exchange, 200, STATIC.get(name), body);
  }

  /** Serves {@code /inspector/api/...}; the token has been checked. */
  void serveApi(HttpExchange exchange, String path) throws IOException {
    if (!hostAllowed(exchange)) {
      return;
    }
    if (path.startsWith(RPC)) {
      call(exchange, path.substring(RPC.length()));
      return;
    }
    switch (path) {
      case API + "info" -> {
        if (readMethod(exchange)) {
          sendJson(exchange, 200, info());
        }
      }
      case API + "scopes" -> {
        if (readMethod(exchange)) {
          sendJson(exchange, 200, scopes());
        }
      }
      case API + "events" -> {
        if (readMethod(exchange)) {
          events(exchange);
        }
      }
      default -> sendError(exchange, 404, "NOT_FOUND", "no inspector route " + path);
    }
  }

  private String info() {
    StringBuilder out = new StringBuilder("{\"version\": ").append(quote(version));
    out.append(", \"writes\": ").append(writes);
    out.append(", \"reads\": ").append(names(READS));
    out.append(", \"mutations\": ").append(names(WRITES)).append("}\n");
    return out.toString();
  }

  private String scopes() {
    StringBuilder out = new StringBuilder("{\"scopes\": [");
    List<Scope> seen = engine.scopesSeen(MemoryEngine.MAX_SCOPES_SEEN);
    for (int i = 0; i < seen.size(); i++) {
      Scope s = seen.get(i);
      out.append(i == 0 ? "\n  " : ",\n  ")
          .append("{\"workspaceId\": ")
          .append(quote(s.workspaceId()))
          .append(", \"userId\": ")
          .append(quote(s.userId()))
          .append(", \"agentId\": ")
          .append(quote(s.agentId()))
          .append("}");
    }
    return out.append(seen.isEmpty() ? "]}\n" : "\n]}\n").toString();
  }

  private void call(HttpExchange exchange, String name) throws IOException {
    MethodDescriptor<Message, Message> method = methods.get(name);
    if (method == null) {
      sendError(
          exchange,
          404,
          "NOT_FOUND",
          "the inspector offers no method " + name + "; it offers " + names(methods.keySet()));
      return;
    }
    if (!exchange.getRequestMethod().equals("POST")) {
      exchange.getResponseHeaders().set("Allow", "POST");
      sendError(exchange, 405, "METHOD_NOT_ALLOWED", "POST the request as JSON");
      return;
    }
    if (WRITES.contains(name) && !writes) {
      sendError(
          exchange,
          403,
          "PERMISSION_DENIED",
          "the inspector is read-only: "
              + name
              + " changes data; set server.inspector.writes: true in memsidecar.yaml to allow it");
      return;
    }
    String type = exchange.getRequestHeaders().getFirst("Content-Type");
    if (type == null || !type.toLowerCase(Locale.ROOT).strip().startsWith("application/json")) {
      sendError(exchange, 415, "UNSUPPORTED_MEDIA_TYPE", "send the request as application/json");
      return;
    }
    byte[] body = exchange.getRequestBody().readNBytes(MAX_BODY_BYTES + 1);
    if (body.length > MAX_BODY_BYTES) {
      sendError(
          exchange, 413, "RESOURCE_EXHAUSTED", "the request is over " + MAX_BODY_BYTES + " bytes");
      return;
    }
    Message.Builder request = prototype(method).newBuilderForType();
    String text = new String(body, StandardCharsets.UTF_8);
    try {
      if (!text.isBlank()) {
        PARSER.merge(text, request);
      }
    } catch (InvalidProtocolBufferException e) {
      sendError(
          exchange,
          400,
          "INVALID_ARGUMENT",
          "the body is not a "
              + request.getDescriptorForType().getFullName()
              + ": "
              + e.getMessage());
      return;
    }
    Message response;
    try {
      response =
          ClientCalls.blockingUnaryCall(
              authorized(exchange),
              method,
              CallOptions.DEFAULT.withDeadlineAfter(CALL_SECONDS, TimeUnit.SECONDS),
              request.build());
    } catch (StatusRuntimeException e) {
      sendStatus(exchange, e.getStatus());
      return;
    }
    sendJson(exchange, 200, JSON.print(response) + "\n");
  }

  private static Message prototype(MethodDescriptor<Message, Message> method) {
    return (Message)
        ((MethodDescriptor.PrototypeMarshaller<?>) method.getRequestMarshaller())
            .getMessagePrototype();
  }

  /** WatchEvents as Server-Sent Events, until the client goes or the sidecar stops. */
  private void events(HttpExchange exchange) throws IOException {
    Map<String, List<String>> query;
    try {
      query = query(exchange.getRequestURI().getRawQuery());
    } catch (IllegalArgumentException e) {
      sendError(exchange, 400, "INVALID_ARGUMENT", "the query is malformed: " + e.getMessage());
      return;
    }
    dev.memsidecar.proto.v1.Scope scope =
        dev.memsidecar.proto.v1.Scope.newBuilder()
            .setWorkspaceId(first(query, "workspace_id"))
            .setUserId(first(query, "user_id"))
            .setAgentId(first(query, "agent_id"))
            .setSessionId(first(query, "session_id"))
            .build();
    WatchEventsRequest request =
        WatchEventsRequest.newBuilder()
            .setScope(scope)
            .addAllTypes(query.getOrDefault("type", List.of()))
            .build();
    BlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    Object opened = new Object();
    Object completed = new Object();
    ClientCallStreamObserver<?>[] call = new ClientCallStreamObserver<?>[1];
    ClientCalls.asyncServerStreamingCall(
        authorized(exchange).newCall(AdminServiceGrpc.getWatchEventsMethod(), CallOptions.DEFAULT),
        request,
        new ClientResponseObserver<WatchEventsRequest, WatchEventsResponse>() {
          @Override
          public void beforeStart(ClientCallStreamObserver<WatchEventsRequest> stream) {
            call[0] = stream;
          }

          @Override
          public void onNext(WatchEventsResponse value) {
            queue.add(value);
          }

          @Override
          public void onError(Throwable t) {
            queue.add(Status.fromThrowable(t));
          }

          @Override
          public void onCompleted() {
            queue.add(completed);
          }
        });
    // Headers wait for the first item or a short pause, so that a refused watch (bad scope, wrong
    // token) is answered with its HTTP status instead of an empty stream.
    Object first;
    try {
      first = queue.poll(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      call[0].cancel("interrupted", e);
      return;
    }
    if (first instanceof Status status) {
      sendStatus(exchange, status);
      return;
    }
    exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    exchange.sendResponseHeaders(200, 0);
    try (OutputStream out = exchange.getResponseBody()) {
      write(out, ": watching\n\n");
      Object next = first == null ? opened : first;
      while (true) {
        if (next instanceof WatchEventsResponse event) {
          write(
              out,
              "event: "
                  + event.getEvent().getType().replaceAll("[\\r\\n]", " ")
                  + "\ndata: "
                  + JSON_LINE.print(event.getEvent())
                  + "\n\n");
        } else if (next instanceof Status status) {
          write(
              out,
              "event: error\ndata: {\"code\": "
                  + quote(status.getCode().name())
                  + ", \"message\": "
                  + quote(String.valueOf(status.getDescription()))
                  + "}\n\n");
          return;
        } else if (next == completed) {
          write(out, "event: end\ndata: {}\n\n");
          return;
        } else if (next == null) {
          write(out, ": still watching\n\n");
        }
        next = queue.poll(HEARTBEAT_SECONDS, TimeUnit.SECONDS);
      }
    } catch (IOException e) {
      // The browser went away.
      call[0].cancel("the client went away", null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      call[0].cancel("interrupted", e);
    }
  }

  private static void write(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  /** The in-process channel carrying the request's bearer token, if it has one. */
  private Channel authorized(HttpExchange exchange) {
    String authorization = exchange.getRequestHeaders().getFirst("Authorization");
    if (authorization == null) {
      return channel;
    }
    Metadata headers = new Metadata();
    headers.put(BearerAuth.AUTHORIZATION, authorization);
    return ClientInterceptors.intercept(
        channel, MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  /**
   * Without a token, refuses a {@code Host} that names another machine than this one: a page on
   * some web site whose name was rebound to 127.0.0.1 must not read the inspector. (With a token
   * such a page gets nothing: it cannot know the token, which the UI keeps per origin.)
   */
  private boolean hostAllowed(HttpExchange exchange) throws IOException {
    String host = exchange.getRequestHeaders().getFirst("Host");
    String name = host == null ? "" : hostName(host);
    if (tokenRequired
        || name.equals("localhost")
        || name.equalsIgnoreCase(httpHost)
        || isIpLiteral(name)
        || (host == null)) {
      return true;
    }
    sendError(
        exchange,
        403,
        "PERMISSION_DENIED",
        "the inspector answers only requests for localhost, an IP address or "
            + httpHost
            + ", not "
            + name);
    return false;
  }

  static String hostName(String host) {
    String h = host.strip().toLowerCase(Locale.ROOT);
    if (h.startsWith("[")) {
      int end = h.indexOf(']');
      return end < 0 ? h : h.substring(1, end);
    }
    int colon = h.indexOf(':');
    return colon < 0 ? h : h.substring(0, colon);
  }

  private static boolean isIpLiteral(String name) {
    if (name.isEmpty()) {
      return false;
    }
    if (name.contains(":")) {
      return name.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.');
    }
    // Digits and dots: an IPv4 address (no domain name is made of digits only).
    return name.chars().allMatch(c -> (c >= '0' && c <= '9') || c == '.');
  }

  private static boolean readMethod(HttpExchange exchange) throws IOException {
    String m = exchange.getRequestMethod();
    if (m.equals("GET") || m.equals("HEAD")) {
      return true;
    }
    exchange.getResponseHeaders().set("Allow", "GET, HEAD");
    sendError(exchange, 405, "METHOD_NOT_ALLOWED", "GET only");
    return false;
  }

  private static void sendStatus(HttpExchange exchange, Status status) throws IOException {
    sendError(
        exchange,
        httpStatus(status.getCode()),
        status.getCode().name(),
        status.getDescription() == null ? status.getCode().name() : status.getDescription());
  }

  /** The HTTP status a gRPC status becomes (as gRPC-gateway maps them). */
  static int httpStatus(Status.Code code) {
    return switch (code) {
      case OK -> 200;
      case INVALID_ARGUMENT, OUT_OF_RANGE, FAILED_PRECONDITION -> 400;
      case UNAUTHENTICATED -> 401;
      case PERMISSION_DENIED -> 403;
      case NOT_FOUND -> 404;
      case ALREADY_EXISTS, ABORTED -> 409;
      case RESOURCE_EXHAUSTED -> 429;
      case CANCELLED -> 499;
      case UNIMPLEMENTED -> 501;
      case UNAVAILABLE -> 503;
      case DEADLINE_EXCEEDED -> 504;
      default -> 500;
    };
  }

  /** An API error: {@code {"error": {"code": ..., "message": ...}}}, with the challenge on 401. */
  static void sendError(HttpExchange exchange, int status, String code, String message)
      throws IOException {
    if (status == 401) {
      exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer");
    }
    sendJson(
        exchange,
        status,
        "{\"error\": {\"code\": " + quote(code) + ", \"message\": " + quote(message) + "}}\n");
  }

  private static void sendJson(HttpExchange exchange, int status, String json) throws IOException {
    send(
        exchange, status, "application/json; charset=utf-8", json.getBytes(StandardCharsets.UTF_8));
  }

  private static void send(HttpExchange exchange, int status, String type, byte[] body)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(status, head ? -1 : body.length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  private static String names(java.util.Collection<String> names) {
    List<String> sorted = new ArrayList<>(names);
    sorted.sort(null);
    StringBuilder out = new StringBuilder("[");
    for (int i = 0; i < sorted.size(); i++) {
      out.append(i == 0 ? "" : ", ").append(quote(sorted.get(i)));
    }
    return out.append("]").toString();
  }

  /** {@code text} as a JSON string. */
  static String quote(String text) {
    StringBuilder out = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029) {
            out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }

  static Map<String, List<String>> query(String raw) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String key = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
      out.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
    }
    return out;
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  private static String first(Map<String, List<String>> query, String key) {
    List<String> values = query.get(key);
    return values == null || values.isEmpty() ? "" : values.get(0);
  }

  @Override
  public void close() {
    channel.shutdownNow();
  }
}
