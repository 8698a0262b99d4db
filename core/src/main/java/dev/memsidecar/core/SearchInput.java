package dev.memsidecar.core;

import dev.memsidecar.api.MemoryKind;
import java.util.List;
import java.util.Set;

/**
 * A search as the client sent it.
 *
 * @param profiles profiles to search; empty means every readable profile the scope can reach
 * @param topK 0 means {@link Limits#DEFAULT_TOP_K}
 * @param kinds kinds to keep; empty keeps all
 * @param tags tags that must all be present
 * @param minScore hits below this score (0..1) are dropped
 */
public record SearchInput(
    Scope scope,
    String query,
    List<String> profiles,
    int topK,
    Set<MemoryKind> kinds,
    List<String> tags,
    float minScore) {

  public SearchInput {
    query = query == null ? "" : query;
    profiles = profiles == null ? List.of() : List.copyOf(profiles);
    kinds = kinds == null ? Set.of() : Set.copyOf(kinds);
    tags = tags == null ? List.of() : List.copyOf(tags);
  }
}
