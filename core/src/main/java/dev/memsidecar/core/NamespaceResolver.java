package dev.memsidecar.core;

import dev.memsidecar.api.Ids;
import dev.memsidecar.api.MemoryException;
import dev.memsidecar.api.Namespace;
import dev.memsidecar.core.config.ProfileSpec;

/**
 * Makes a namespace from a scope and a profile, the only way namespaces are made. Every id is
 * checked (fail closed: a bad or missing id is INVALID_ARGUMENT naming the field):
 *
 * <pre>
 * workspace  &lt;workspaceId&gt;:workspace:&lt;profile&gt;
 * user       &lt;workspaceId&gt;:user:&lt;userId&gt;:&lt;profile&gt;
 * agent      &lt;workspaceId&gt;:agent:&lt;agentId&gt;:&lt;profile&gt;
 * session    &lt;workspaceId&gt;:session:&lt;sessionId&gt;:&lt;profile&gt;
 * </pre>
 *
 * Since ids cannot hold ':', no two (scope, profile) pairs share a namespace. Every id the scope
 * carries is checked, also those the profile does not use ({@link #requireIds}).
 */
public final class NamespaceResolver {

  /** The namespace of {@code profile} for {@code scope}. */
  public Namespace resolve(Scope scope, ProfileSpec profile) {
    String ws = requireIds(scope);
    String id = profile.id();
    return Namespace.of(
        switch (profile.scopeKind()) {
          case WORKSPACE -> ws + ":workspace:" + id;
          case USER -> ws + ":user:" + require("scope.user_id", scope.userId(), id) + ":" + id;
          case AGENT -> ws + ":agent:" + require("scope.agent_id", scope.agentId(), id) + ":" + id;
          case SESSION ->
              ws + ":session:" + require("scope.session_id", scope.sessionId(), id) + ":" + id;
        });
  }

  /**
   * Checks every id of {@code scope}, whether or not the call needs it: the workspace id is
   * required, the others may be empty and otherwise must be valid ids. So an over-long or malformed
   * id is refused at once (INVALID_ARGUMENT naming it, its value quoted cut to 80 characters) even
   * where it would be ignored, such as a user id sent to a workspace profile or to the tool rules.
   *
   * @return the workspace id
   */
  public static String requireIds(Scope scope) {
    String ws = Ids.require("scope.workspace_id", scope.workspaceId());
    optionalId("scope.user_id", scope.userId());
    optionalId("scope.agent_id", scope.agentId());
    optionalId("scope.session_id", scope.sessionId());
    return ws;
  }

  /**
   * Whether {@code scope} carries an id for the scope kind {@code profile} needs (the id may still
   * be malformed: {@link #resolve} checks it). A search over all profiles skips those without one.
   */
  public boolean hasIdFor(Scope scope, ProfileSpec profile) {
    String id =
        switch (profile.scopeKind()) {
          case WORKSPACE -> scope.workspaceId();
          case USER -> scope.userId();
          case AGENT -> scope.agentId();
          case SESSION -> scope.sessionId();
        };
    return !id.isEmpty();
  }

  private static void optionalId(String field, String id) {
    if (!id.isEmpty()) {
      Ids.require(field, id);
    }
  }

  private static String require(String field, String value, String profileId) {
    if (value.isEmpty()) {
      throw MemoryException.invalidArgument(
          field, field + " is required by profile '" + profileId + "'");
    }
    return Ids.require(field, value);
  }
}
