package dev.memsidecar.api;

import java.util.Map;
import java.util.Set;

/**
 * A kind of memory storage, found with {@link java.util.ServiceLoader} (list the implementation in
 * {@code META-INF/services/dev.memsidecar.api.MemoryProvider}). The engine opens one {@link
 * MemoryStore} per memory profile that names the provider.
 *
 * <p>Implementations need a public no-argument constructor and must be thread-safe. They must not
 * depend on anything but this API and their own libraries (custom providers load in a class loader
 * that shows them this package only).
 */
public interface MemoryProvider {

  /** The name profiles select it by ({@code spec.provider}): lower case, e.g. "langmem-sqlite". */
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
   * Facts about this provider worth showing an operator (GetStatus), e.g. lucene-hnsw's
   * {@code "vectorization"}. Empty by default.
   */
  default Map<String, String> details() {
    return Map.of();
  }

  /**
   * Opens the store of one profile. Fails with INVALID_ARGUMENT naming any setting it does not
   * know (see {@link ProviderContext#requireOnly}), and UNAVAILABLE when its storage cannot open.
   */
  MemoryStore open(ProviderContext context);
}
