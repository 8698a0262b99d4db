package dev.memsidecar.sidecar.cli;

import dev.memsidecar.proto.v1.Scope;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * How a client command reaches a running sidecar and whose memory it works on: the options every
 * client command shares (a picocli mixin). Environment variables stand in for flags not given.
 */
public final class ClientOptions {
  /** Where the sidecar listens when neither {@code --target} nor its variable says. */
  public static final String DEFAULT_TARGET = "127.0.0.1:7411";

  @Option(
      names = "--target",
      paramLabel = "HOST:PORT",
      description = "the sidecar to call (default ${DEFAULT-VALUE}; env MEMSIDECAR_TARGET)",
      defaultValue = "${env:MEMSIDECAR_TARGET:-" + DEFAULT_TARGET + "}")
  String target;

  @Option(
      names = "--unix-socket",
      paramLabel = "PATH",
      description = "call the sidecar on this Unix socket instead (env MEMSIDECAR_UNIX_SOCKET)",
      defaultValue = "${env:MEMSIDECAR_UNIX_SOCKET}")
  Path unixSocket;

  @Option(
      names = "--token-file",
      paramLabel = "FILE",
      description =
          "the bearer token the sidecar asks for, read from FILE (or env MEMSIDECAR_AUTH_TOKEN)")
  Path tokenFile;

  @Option(
      names = "--timeout",
      paramLabel = "SECONDS",
      defaultValue = "30",
      description = "give up on a call after this long (default ${DEFAULT-VALUE})")
  int timeoutSeconds;

  @Option(
      names = "--workspace-id",
      paramLabel = "ID",
      defaultValue = "${env:MEMSIDECAR_WORKSPACE_ID:-default}",
      description = "the workspace (default ${DEFAULT-VALUE}; env MEMSIDECAR_WORKSPACE_ID)")
  String workspaceId;

  @Option(
      names = "--user-id",
      paramLabel = "ID",
      defaultValue = "${env:MEMSIDECAR_USER_ID:-}",
      description = "the user, for user profiles and sessions (env MEMSIDECAR_USER_ID)")
  String userId;

  @Option(
      names = "--agent-id",
      paramLabel = "ID",
      defaultValue = "${env:MEMSIDECAR_AGENT_ID:-}",
      description = "the agent, for agent profiles (env MEMSIDECAR_AGENT_ID)")
  String agentId;

  @Option(
      names = "--session-id",
      paramLabel = "ID",
      defaultValue = "${env:MEMSIDECAR_SESSION_ID:-}",
      description = "the session, for session profiles and history (env MEMSIDECAR_SESSION_ID)")
  String sessionId;

  @Option(names = "--json", description = "print JSON, one object per line, for scripts")
  boolean json;

  Scope scope() {
    return Scope.newBuilder()
        .setWorkspaceId(workspaceId)
        .setUserId(userId)
        .setAgentId(agentId)
        .setSessionId(sessionId)
        .build();
  }
}
