package dev.memsidecar.api;

import java.util.Map;
import java.util.Set;

/**
 * A kind of memory storage, found with {@link java.util.ServiceLoader} (list the implementation in
 * {@code META-INF/services/dev.memsidecar.api.MemoryProvider}). The engine opens one {@link
 * MemoryStore} per memory profile that names the provider.
 *
 * <p>Names and aliases are lower case and match {@link #NAME}; two providers claiming one name fail
 * the sidecar's start-up. Implementations need a public no-argument constructor and must be
 * thread-safe. They must not depend on anything but this API and their own libraries: a provider
 * from the plugins folder loads in a class loader that shows it this package and the JDK only, and
 * the engine calls it with that class loader as the thread's context class loader.
 */
public interface MemoryProvider {
  /** What names and aliases look like: lower case, 1..64 characters. */
  String NAME = "[a-z0-9][a-z0-9._-]{0,63}";

  /** The name profiles select it by ({@code spec.provider}), e.g. "langmem-sqlite". */
  String name();

  /** Other names that select it, e.g. "langmem". Empty by default. */
  default Set<String> aliases() {
    return Set.of();
  }

  /** What its stores can do; {@link Capability#RECORDS} by default. */
  default Set<Capability> capabilities() {
    return Set.of(Capability.RECORDS);
  }

  /**
   * The setting keys whose values are secrets (passwords, tokens). The engine shows them as {@code
   * ***} wherever it shows settings (GetStatus, logs), and the provider keeps them out of its own
   * messages. Empty by default.
   */
  default Set<String> sensitiveSettings() {
    return Set.of();
  }

  /**
   * Facts about this provider worth showing an operator (GetStatus), e.g. lucene-hnsw's {@code
   * "vectorization"}. Never secrets. Empty by default.
   */
  default Map<String, String> details() {
    return Map.of();
  }

  /**
   * Opens the store of one profile. Fails with INVALID_ARGUMENT naming any setting it does not know
   * or cannot parse (see {@link ProviderContext#requireOnly} and the typed getters), and
   * UNAVAILABLE when its storage cannot open.
   */
  MemoryStore open(ProviderContext context);
}
