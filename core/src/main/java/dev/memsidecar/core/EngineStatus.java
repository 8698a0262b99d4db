package dev.memsidecar.core;

import dev.memsidecar.core.config.Flags;
import java.util.List;

/**
 * What GetStatus reports.
 *
 * @param providers every provider found, by canonical name
 * @param profiles the active profiles
 * @param flags the four flags
 * @param embedder the embedder's name
 */
public record EngineStatus(
    List<String> providers, List<ProfileStatus> profiles, Flags flags, String embedder) {

  /** One profile: id, scope kind ("workspace", "user", ...), provider, enabled. */
  public record ProfileStatus(String id, String scopeKind, String provider, boolean enabled) {}
}
