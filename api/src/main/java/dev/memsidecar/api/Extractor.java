package dev.memsidecar.api;

import java.util.List;
import java.util.Optional;

/**
 * Finds what is worth remembering in one run, opened by an {@link ExtractorProvider}. The engine
 * sends every candidate through its low-value filter, write gate and dedupe, so an extractor may
 * propose generously but should score honestly. Thread-safe.
 */
public interface Extractor {
  /**
   * The candidates of {@code request}, in the order they appear in the run.
   *
   * @throws MemoryException UNAVAILABLE when it cannot extract (a model endpoint down, an answer it
   *     could not use after its own retries): the engine then falls back to the {@code rules}
   *     extractor and emits {@code memory.extraction.failed}
   */
  List<MemoryCandidate> extract(ExtractionRequest request);

  /**
   * A SKILL.md for a skill candidate, written by this extractor's model: front matter with the
   * request's {@code name} and a one-line {@code description}, then the steps, the tools and the
   * evidence they came from. An optional capability: by default there is none (empty), and the
   * engine keeps its own draft. Whatever this returns waits for a reviewer; the engine checks its
   * front matter and keeps its own draft when the answer does not fit.
   *
   * @throws MemoryException UNAVAILABLE when it cannot write one (a model endpoint down, an answer
   *     it could not use): the engine then keeps its own draft and emits {@code
   *     skill.synthesis.failed}
   */
  default Optional<String> draftSkill(SkillDraftRequest request) {
    return Optional.empty();
  }
}
