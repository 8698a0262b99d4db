package dev.memsidecar.core.sessions;

import static java.util.Objects.requireNonNull;

/**
 * One session: it belongs to one user ({@code userId}, empty for workspace-level sessions) of one
 * workspace, so the same session id under two users is two sessions.
 */
public record SessionKey(String workspaceId, String userId, String sessionId) {
  public SessionKey {
    requireNonNull(workspaceId, "workspaceId is null");
    requireNonNull(userId, "userId is null");
    requireNonNull(sessionId, "sessionId is null");
  }

  /** Whose sessions these are. */
  public Owner owner() {
    return new Owner(workspaceId, userId);
  }

  /** A user of a workspace, whose sessions are searched and listed together. */
  public record Owner(String workspaceId, String userId) {
    public Owner {
      requireNonNull(workspaceId, "workspaceId is null");
      requireNonNull(userId, "userId is null");
    }

    public SessionKey session(String sessionId) {
      return new SessionKey(workspaceId, userId, sessionId);
    }
  }
}
