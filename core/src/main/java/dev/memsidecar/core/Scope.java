package dev.memsidecar.core;

/**
 * Who a call is for, as the client said it. Empty strings mean "not given". Nothing here is trusted
 * until {@link NamespaceResolver} has checked it.
 */
public record Scope(String workspaceId, String userId, String agentId, String sessionId) {
  public Scope {
    workspaceId = workspaceId == null ? "" : workspaceId;
    userId = userId == null ? "" : userId;
    agentId = agentId == null ? "" : agentId;
    sessionId = sessionId == null ? "" : sessionId;
  }

  public static Scope workspace(String workspaceId) {
    return new Scope(workspaceId, "", "", "");
  }

  public static Scope user(String workspaceId, String userId) {
    return new Scope(workspaceId, userId, "", "");
  }
}
