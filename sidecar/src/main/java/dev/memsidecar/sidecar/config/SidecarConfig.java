package dev.memsidecar.sidecar.config;

import static java.util.Objects.requireNonNull;

import dev.memsidecar.core.config.EngineConfig;
import java.nio.file.Path;

/**
 * The whole, validated configuration of one sidecar process; built by {@link ConfigLoader}.
 *
 * @param host the address the gRPC server binds to, e.g. "127.0.0.1"
 * @param port the gRPC port, 0..65535 (0 picks a free port)
 * @param dataDir where all generated data lives; absolute and normalised
 * @param workspaceDir the workspace folder the configuration was read from; absolute and normalised
 * @param engine the engine's configuration; its {@link EngineConfig#dataDir()} is {@code dataDir}
 * @param maxConcurrentCalls {@code server.maxConcurrentCalls}: calls that run at once, one worker
 *     thread each, 1..{@value #MAX_CALLS}
 * @param maxQueuedCalls {@code server.maxQueuedCalls}: calls admitted beyond those that wait for a
 *     free worker, 0..{@value #MAX_CALLS}; a call beyond both is refused with RESOURCE_EXHAUSTED
 * @param authToken the bearer token every call but health must carry ({@code server.auth}), or null
 *     for none; {@link #toString} never shows it
 * @param unixSocket a Unix domain socket to listen on besides the TCP port ({@code
 *     server.unixSocket}), absolute; or null for none
 * @param httpHost the address the HTTP port binds to ({@code server.http.host}, default {@code
 *     host})
 * @param httpPort the HTTP port ({@code server.http.port}), 0 for any free one, or null for none
 * @param inspector the web inspector on the HTTP port ({@code server.inspector}); never on without
 *     {@code httpPort}
 */
public record SidecarConfig(
    String host,
    int port,
    Path dataDir,
    Path workspaceDir,
    EngineConfig engine,
    int maxConcurrentCalls,
    int maxQueuedCalls,
    String authToken,
    Path unixSocket,
    String httpHost,
    Integer httpPort,
    Inspector inspector) {

  public static final String DEFAULT_HOST = "127.0.0.1";
  public static final int DEFAULT_PORT = 7411;

  /** The data folder's default name, inside the workspace. */
  public static final String DEFAULT_DATA_DIR = ".memsidecar";

  /** The plugins folder's default name, inside the workspace. */
  public static final String DEFAULT_PLUGINS_DIR = "plugins";

  public static final int DEFAULT_MAX_CONCURRENT_CALLS = 16;
  public static final int DEFAULT_MAX_QUEUED_CALLS = 64;

  /** The largest {@code maxConcurrentCalls} or {@code maxQueuedCalls} accepted. */
  public static final int MAX_CALLS = 4096;

  public SidecarConfig {
    requireNonNull(host, "host is null");
    requireNonNull(dataDir, "dataDir is null");
    requireNonNull(workspaceDir, "workspaceDir is null");
    requireNonNull(engine, "engine is null");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port " + port + " is outside 0..65535");
    }
    requireNonNull(httpHost, "httpHost is null");
    requireNonNull(inspector, "inspector is null");
    if (inspector.enabled() && httpPort == null) {
      throw new IllegalArgumentException("the inspector needs the HTTP port");
    }
    if (httpPort != null && (httpPort < 0 || httpPort > 65535)) {
      throw new IllegalArgumentException("httpPort " + httpPort + " is outside 0..65535");
    }
    if (maxConcurrentCalls < 1 || maxConcurrentCalls > MAX_CALLS) {
      throw new IllegalArgumentException(
          "maxConcurrentCalls " + maxConcurrentCalls + " is outside 1.." + MAX_CALLS);
    }
    if (maxQueuedCalls < 0 || maxQueuedCalls > MAX_CALLS) {
      throw new IllegalArgumentException(
          "maxQueuedCalls " + maxQueuedCalls + " is outside 0.." + MAX_CALLS);
    }
  }

  @Override
  public String toString() {
    return "SidecarConfig[host="
        + host
        + ", port="
        + port
        + ", dataDir="
        + dataDir
        + ", workspaceDir="
        + workspaceDir
        + ", engine="
        + engine
        + ", maxConcurrentCalls="
        + maxConcurrentCalls
        + ", maxQueuedCalls="
        + maxQueuedCalls
        + ", authToken="
        + (authToken == null ? "none" : "***")
        + ", unixSocket="
        + unixSocket
        + ", http="
        + (httpPort == null ? "off" : httpHost + ":" + httpPort)
        + ", inspector="
        + (inspector.enabled() ? (inspector.writes() ? "read-write" : "read-only") : "off")
        + "]";
  }

  /**
   * The web inspector ({@code server.inspector}, {@code serve --inspector}).
   *
   * @param enabled whether {@code /inspector/} is served on the HTTP port
   * @param writes whether its API may change anything (forget a memory, delete a tool rule, review
   *     a skill candidate); false: every such call is refused with 403
   */
  public record Inspector(boolean enabled, boolean writes) {
    /** Not served. */
    public static final Inspector OFF = new Inspector(false, false);
  }
}
