package dev.memsidecar.core.config;

import static java.util.Objects.requireNonNull;

import java.util.Map;

/**
 * A Memory profile as configured (a {@code kind: Memory} YAML document).
 *
 * @param id {@code metadata.name}, e.g. "workspace"; matches the id pattern
 * @param scopeKind {@code spec.profile}: which scope id keys its namespace
 * @param provider {@code spec.provider}, e.g. "langmem-sqlite" ("langmem" is an alias)
 * @param enabled {@code spec.enabled}
 * @param description {@code metadata.description}, may be empty
 * @param prompts {@code spec.prompts}: "semantic", "episodic", "procedural" extraction prompts
 * @param settings {@code spec.settings}: handed to the provider as they are
 */
public record ProfileSpec(
    String id,
    ScopeKind scopeKind,
    String provider,
    boolean enabled,
    String description,
    Map<String, String> prompts,
    Map<String, String> settings) {

  public static final String DEFAULT_PROVIDER = "langmem-sqlite";

  public ProfileSpec {
    requireNonNull(id, "id is null");
    requireNonNull(scopeKind, "scopeKind is null");
    requireNonNull(provider, "provider is null");
    description = description == null ? "" : description;
    prompts = prompts == null ? Map.of() : Map.copyOf(prompts);
    settings = settings == null ? Map.of() : Map.copyOf(settings);
  }

  /** An enabled profile on the default provider with no prompts or settings. */
  public static ProfileSpec of(String id, ScopeKind scopeKind) {
    return new ProfileSpec(id, scopeKind, DEFAULT_PROVIDER, true, "", Map.of(), Map.of());
  }
}
