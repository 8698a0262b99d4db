package dev.memsidecar.core;

import dev.memsidecar.core.config.Flags;
import java.util.List;
import java.util.Map;

/**
 * What GetStatus reports.
 *
 * @param providers every provider found, sorted by name
 * @param profiles the active profiles
 * @param flags the four flags
 * @param embedder the embedder's name
 * @param plugins the plugins loaded from the plugins folder
 */
public record EngineStatus(
    List<ProviderStatus> providers,
    List<ProfileStatus> profiles,
    Flags flags,
    String embedder,
    List<String> plugins) {

  /**
   * One provider.
   *
   * @param name canonical name
   * @param aliases other names that select it
   * @param capabilities lower-case capability names ("records", "files")
   * @param source "classpath" or the plugin it came from
   * @param details what the provider reports about itself
   */
  public record ProviderStatus(
      String name,
      List<String> aliases,
      List<String> capabilities,
      String source,
      Map<String, String> details) {}

  /** One profile: id, scope kind ("workspace", "user", ...), provider, enabled. */
  public record ProfileStatus(String id, String scopeKind, String provider, boolean enabled) {}
}
