package dev.memsidecar.core;

import dev.memsidecar.api.PendingVectors;
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
 * @param embedderDimensions the length of the embedder's vectors
 * @param plugins the plugins loaded from the plugins folder
 * @param extractor the extractor EndRun uses
 * @param sessionVectorsPending session messages appended whose vectors are not made yet
 */
public record EngineStatus(
    List<ProviderStatus> providers,
    List<ProfileStatus> profiles,
    Flags flags,
    String embedder,
    int embedderDimensions,
    List<String> plugins,
    String extractor,
    long sessionVectorsPending) {

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

  /**
   * One profile.
   *
   * @param id the profile id
   * @param scopeKind "workspace", "user", "agent" or "session"
   * @param provider the canonical provider name
   * @param enabled {@code spec.enabled}
   * @param settings its provider settings, the provider's sensitive ones shown as {@code ***}
   * @param pendingVectors its records acknowledged whose vectors are still being made
   */
  public record ProfileStatus(
      String id,
      String scopeKind,
      String provider,
      boolean enabled,
      Map<String, String> settings,
      PendingVectors pendingVectors) {}
}
