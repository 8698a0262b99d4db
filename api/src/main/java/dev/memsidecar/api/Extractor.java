package dev.memsidecar.api;

import java.util.List;

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
}
